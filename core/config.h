/* The configuration table: every environment variable AOE reads is declared
 * once in config_vars.h (name, type, default, allowed values, help). Parsing,
 * validation messages, `aoe config` and the README table derive from it. */
#ifndef AOE_CONFIG_H
#define AOE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/config_vars.h"

typedef enum { AOE_CFG_STRING, AOE_CFG_PATH, AOE_CFG_BOOL, AOE_CFG_INT, AOE_CFG_ENUM } aoe_cfg_type;

/* Index of each variable in the table (generated from config_vars.h). */
#define AOE_CFG_ENUM_ID(id, name, type, def, allowed, help) AOE_CFG_##id,
typedef enum { AOE_CFG_VARS(AOE_CFG_ENUM_ID) AOE_CFG_COUNT } aoe_cfg_id;

typedef struct {
    const char *name;
    aoe_cfg_type type;
    const char *def;     /* default as text ("" = unset / derived) */
    const char *allowed; /* enum: "a|b|c"; int: "min..max"; else NULL */
    const char *help;
} aoe_cfg_decl;

typedef struct {
    /* Parsed values, indexed by aoe_cfg_id. Strings live in `text`. */
    const char *text[AOE_CFG_COUNT]; /* effective value as text (never NULL) */
    long num[AOE_CFG_COUNT];         /* bool: 0/1, int: value, enum: index */
    bool from_env[AOE_CFG_COUNT];    /* true: set in the environment */
    char storage[8192];              /* copies of the environment values */
} aoe_config;

extern const aoe_cfg_decl aoe_cfg_table[AOE_CFG_COUNT];

/* Reads every variable from the environment (getenv is only called here).
 * Returns 0, or -1 with one clear message in err naming the variable, the bad
 * value and what is allowed. On error *cfg still holds the defaults for the
 * variables that parsed. */
int aoe_config_load(aoe_config *cfg, char *err, size_t errlen);

/* Parses one value for variable id ("" or NULL = default); used by load and tests. */
int aoe_config_parse_one(aoe_cfg_id id, const char *value, long *num, char *err, size_t errlen);

/* The knowledge bank directory: TUNE_BANK_PATH, else $XDG_DATA_HOME/aoe/bank,
 * else $HOME/.local/share/aoe/bank. Returns 0 or -1 (no HOME). */
int aoe_config_bank_path(const aoe_config *cfg, char *out, size_t outlen);

/* `aoe config`: human table, JSON, or the README's markdown table. */
void aoe_config_print(const aoe_config *cfg, FILE *out);
void aoe_config_print_json(const aoe_config *cfg, FILE *out);
void aoe_config_print_markdown(FILE *out);

#endif
