/* Random search: uniformly drawn configurations, never the same one twice.
 * The reference every other strategy is compared against. */
#include "tuner/strategies/common.h"

void aoe_strategy_random(aoe_search *s)
{
    while (!aoe_search_done(s)) {
        long r = aoe_search_random_unseen(s);
        if (r < 0) break;
        aoe_search_eval(s, r);
    }
}
