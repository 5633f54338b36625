/* The configuration table: every environment variable AOE reads is declared
 * once in config.c (name, type, default, allowed values, help). Parsing,
 * validation messages, `aoe config` and the README table derive from it. */
#ifndef AOE_CONFIG_H
#define AOE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { AOE_CFG_STRING, AOE_CFG_PATH, AOE_CFG_BOOL, AOE_CFG_INT, AOE_CFG_ENUM } aoe_cfg_type;

/* Index of each variable in the table; keep in the same order as config.c. */
typedef enum {
    AOE_CFG_TUNE_BANK_PATH,
    AOE_CFG_REPEAT_TUNE,
    AOE_CFG_LOG_LEVEL,
    AOE_CFG_TUNE_MODE,
    AOE_CFG_WORK_PATH,
    AOE_CFG_TUNABLES,
    AOE_CFG_AUTO_DEFINES,
    AOE_CFG_PARALLEL_COMPILE,
    AOE_CFG_VARIANT_TIMEOUT,
    AOE_CFG_CAPTURE_LIMIT_MB,
    AOE_CFG_SPOOL_MAX_JOBS,
    AOE_CFG_SPOOL_MAX_MB,
    AOE_CFG_TUNE_OPS,
    AOE_CFG_POLL_MS,
    AOE_CFG_MAX_EVALS,
    AOE_CFG_TIME_LIMIT,
    AOE_CFG_STRATEGY,
    AOE_CFG_TUNER_MAX_MB,
    AOE_CFG_TUNER_IDLE_EXIT,
    AOE_CFG_COUNT
} aoe_cfg_id;

typedef struct {
    const char *name;
    aoe_cfg_type type;
    const char *def;     /* default as text ("" = unset / derived) */
    const char *allowed; /* enum: "a|b|c"; int: "min..max"; else NULL */
    const char *help;
} aoe_cfg_decl;

enum { AOE_LOG_ERROR = 0, AOE_LOG_WARN = 1, AOE_LOG_INFO = 2, AOE_LOG_DEBUG = 3 };
enum { AOE_MODE_ONLINE = 0, AOE_MODE_OFFLINE = 1, AOE_MODE_OFF = 2 };

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
