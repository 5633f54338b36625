/* The search strategies, declared once: X(ID, "name", function, in_all).
 * The list generates the names array and the dispatch (tuner/strategy.c), the
 * `allowed` string of AOE_STRATEGY (preload/config.c, which never calls the
 * functions) and the `--strategy all` set of `aoe tune --simulate`. Order is
 * the order users see. in_all = 0 marks an alias of another entry. */
#ifndef AOE_STRATEGY_LIST_H
#define AOE_STRATEGY_LIST_H

/* "auto" is the best strategy measured in simulation (README, strategies). */
#define AOE_STRATEGY_LIST(X)                                                                       \
    X(AUTO, "auto", aoe_strategy_portfolio, 0)                                                     \
    X(BRUTE, "brute", aoe_strategy_brute, 1)                                                       \
    X(RANDOM, "random", aoe_strategy_random, 1)                                                    \
    X(ANNEALING, "annealing", aoe_strategy_annealing, 1)                                           \
    X(GENETIC, "genetic", aoe_strategy_genetic, 1)                                                 \
    X(ILS, "ils", aoe_strategy_ils, 1)                                                             \
    X(SURROGATE, "surrogate", aoe_strategy_surrogate, 1)                                           \
    X(PORTFOLIO, "portfolio", aoe_strategy_portfolio, 1)

/* Accepted by aoe_strategy_run but never listed: "bandit", named in an early
 * draft of strategy.h, means "auto". */
#define AOE_STRATEGY_HIDDEN(X) X(BANDIT, "bandit", aoe_strategy_portfolio, 0)

#define AOE_STRATEGY_ENUM(id, name, fn, in_all) AOE_STRAT_##id,
#define AOE_STRATEGY_BAR(id, name, fn, in_all) "|" name

/* Index of each listed strategy; AOE_STRATEGY's num holds it. */
enum { AOE_STRATEGY_LIST(AOE_STRATEGY_ENUM) AOE_STRAT_COUNT };

/* "auto|brute|...": the `allowed` string of AOE_STRATEGY (past the first "|"). */
#define AOE_STRATEGY_ALLOWED (&AOE_STRATEGY_LIST(AOE_STRATEGY_BAR)[1])

#endif
