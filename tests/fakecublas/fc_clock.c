/* Simulated time, one counter set per library (each links its own copy). */
#include "fc_clock.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double last_us, total_us;
static uint64_t count;

void fc_clock_add(double us)
{
    pthread_mutex_lock(&lock);
    last_us = us;
    total_us += us;
    count++;
    pthread_mutex_unlock(&lock);
}

double fc_clock_last(void)
{
    pthread_mutex_lock(&lock);
    double v = last_us;
    pthread_mutex_unlock(&lock);
    return v;
}

double fc_clock_total(void)
{
    pthread_mutex_lock(&lock);
    double v = total_us;
    pthread_mutex_unlock(&lock);
    return v;
}

uint64_t fc_clock_count(void)
{
    pthread_mutex_lock(&lock);
    uint64_t v = count;
    pthread_mutex_unlock(&lock);
    return v;
}
