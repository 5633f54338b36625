/* The values of each choice variable, declared once: X(ENUM_ID, "spelling").
 * The list generates both the enum (num holds the index) and the variable's
 * `allowed` string, so the two cannot drift apart. */
#ifndef AOE_CONFIG_CHOICES_H
#define AOE_CONFIG_CHOICES_H

#define AOE_LOG_LEVELS(X)                                                                          \
    X(AOE_LOG_ERROR, "error")                                                                      \
    X(AOE_LOG_WARN, "warn")                                                                        \
    X(AOE_LOG_INFO, "info")                                                                        \
    X(AOE_LOG_DEBUG, "debug")

#define AOE_TUNE_MODES(X)                                                                          \
    X(AOE_MODE_ONLINE, "online")                                                                   \
    X(AOE_MODE_OFFLINE, "offline")                                                                 \
    X(AOE_MODE_OFF, "off")

#define AOE_CHOICE_ENUM(id, spelling) id,
#define AOE_CHOICE_NAME(id, spelling) spelling,
#define AOE_CHOICE_BAR(id, spelling) "|" spelling
/* "a|b|c": every value with a leading '|', then the first '|' skipped. */
#define AOE_CHOICE_ALLOWED(LIST) (&LIST(AOE_CHOICE_BAR)[1])

enum { AOE_LOG_LEVELS(AOE_CHOICE_ENUM) AOE_LOG_COUNT };
enum { AOE_TUNE_MODES(AOE_CHOICE_ENUM) AOE_MODE_COUNT };

#endif
