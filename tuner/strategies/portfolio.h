/* Settings of the portfolio search (portfolio.c), changeable for simulation
 * only (`aoe tune --simulate --set NAME=VALUE`): cross-validation chooses
 * them (scripts/bench/cross-validate). */
#ifndef AOE_STRATEGIES_PORTFOLIO_H
#define AOE_STRATEGIES_PORTFOLIO_H

/* Sets one setting; returns 0, or -1 for an unknown name or a value that is
 * negative, non-finite, above the setting's largest or not a whole number
 * where one is needed. */
int aoe_portfolio_set(const char *name, double value);

/* "a whole number in 0..100" or the like for a setting, NULL for an unknown
 * name; and every name, comma-separated. For messages. */
const char *aoe_portfolio_range(const char *name);
const char *aoe_portfolio_names(void);

/* One line per setting, "    name=default: what it means\n", for --help. */
const char *aoe_portfolio_help(void);

/* Puts every setting back to its default (the settings are process-wide). */
void aoe_portfolio_defaults(void);

#endif
