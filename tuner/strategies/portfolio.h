/* Settings of the portfolio search (portfolio.c), changeable for simulation
 * only (`aoe tune --simulate --set NAME=VALUE`): cross-validation chooses
 * them (scripts/bench/cross-validate). */
#ifndef AOE_STRATEGIES_PORTFOLIO_H
#define AOE_STRATEGIES_PORTFOLIO_H

/* Sets one setting; returns 0, or -1 for an unknown name or a negative or
 * non-finite value. */
int aoe_portfolio_set(const char *name, double value);

#endif
