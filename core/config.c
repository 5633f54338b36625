#include "core/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AOE_CFG_ROW(id, name, type, def, allowed, help)                                            \
    [AOE_CFG_##id] = {name, type, def, allowed, help},
const aoe_cfg_decl aoe_cfg_table[AOE_CFG_COUNT] = {AOE_CFG_VARS(AOE_CFG_ROW)};

static const char *type_name(aoe_cfg_type t)
{
    switch (t) {
    case AOE_CFG_STRING:
        return "string";
    case AOE_CFG_PATH:
        return "path";
    case AOE_CFG_BOOL:
        return "bool";
    case AOE_CFG_INT:
        return "integer";
    case AOE_CFG_ENUM:
        return "choice";
    }
    return "?";
}

static int parse_bool(const char *v, long *num)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1"))
        *num = 1;
    else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
        *num = 0;
    else
        return -1;
    return 0;
}

static int parse_enum(const char *allowed, const char *v, long *num)
{
    long idx = 0;
    const char *p = allowed;
    size_t vlen = strlen(v);
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && !strncasecmp(p, v, len)) {
            *num = idx;
            return 0;
        }
        idx++;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

static int parse_int(const char *allowed, const char *v, long *num)
{
    long lo = 0, hi = 0;
    if (sscanf(allowed, "%ld..%ld", &lo, &hi) != 2) return -1;
    if (!(*v == '-' || (*v >= '0' && *v <= '9'))) return -1; /* strtol skips spaces */
    errno = 0;
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < lo || x > hi) return -1;
    *num = x;
    return 0;
}

int aoe_config_parse_one(aoe_cfg_id id, const char *value, long *num, char *err, size_t errlen)
{
    const aoe_cfg_decl *d = &aoe_cfg_table[id];
    const char *v = (value && *value) ? value : d->def;
    int rc = 0;
    *num = 0;
    switch (d->type) {
    case AOE_CFG_BOOL:
        rc = parse_bool(v, num);
        break;
    case AOE_CFG_ENUM:
        rc = parse_enum(d->allowed, v, num);
        break;
    case AOE_CFG_INT:
        rc = parse_int(d->allowed, v, num);
        break;
    case AOE_CFG_PATH:
    case AOE_CFG_STRING:
        if (strlen(v) >= 4096) {
            snprintf(err, errlen, "%s is longer than 4095 characters", d->name);
            return -1;
        }
        break;
    }
    if (rc) {
        if (d->type == AOE_CFG_INT)
            snprintf(err, errlen, "%s=\"%.64s\" is not an integer in %s", d->name, v, d->allowed);
        else
            snprintf(err, errlen, "%s=\"%.64s\" is not one of %s", d->name, v, d->allowed);
    }
    return rc;
}

int aoe_config_load(aoe_config *cfg, char *err, size_t errlen)
{
    size_t used = 0;
    int rc = 0;
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < AOE_CFG_COUNT; i++) {
        const aoe_cfg_decl *d = &aoe_cfg_table[i];
        const char *env = getenv(d->name);
        cfg->text[i] = d->def;
        if (env && *env) {
            size_t len = strlen(env) + 1;
            if (used + len <= sizeof cfg->storage) {
                memcpy(cfg->storage + used, env, len);
                cfg->text[i] = cfg->storage + used;
                used += len;
            }
            cfg->from_env[i] = true;
        }
        char e[256];
        if (aoe_config_parse_one((aoe_cfg_id)i, env, &cfg->num[i], e, sizeof e)) {
            if (!rc) snprintf(err, errlen, "%s", e);
            rc = -1;
            cfg->text[i] = d->def;
            cfg->from_env[i] = false;
            aoe_config_parse_one((aoe_cfg_id)i, NULL, &cfg->num[i], e, sizeof e);
        } else if (env && *env && cfg->text[i] == d->def) {
            if (!rc) snprintf(err, errlen, "environment values too long in total");
            rc = -1;
        }
    }
    return rc;
}

int aoe_config_bank_path(const aoe_config *cfg, char *out, size_t outlen)
{
    const char *p = cfg->text[AOE_CFG_TUNE_BANK_PATH];
    int n;
    if (p && *p) {
        n = snprintf(out, outlen, "%s", p);
    } else {
        const char *xdg = getenv("XDG_DATA_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg)
            n = snprintf(out, outlen, "%s/aoe/bank", xdg);
        else if (home && *home)
            n = snprintf(out, outlen, "%s/.local/share/aoe/bank", home);
        else
            return -1;
    }
    return (n < 0 || (size_t)n >= outlen) ? -1 : 0;
}

static const char *shown_value(const aoe_config *cfg, int i, char *buf, size_t len)
{
    if (i == AOE_CFG_TUNE_BANK_PATH && !cfg->from_env[i]) {
        if (aoe_config_bank_path(cfg, buf, len) == 0) return buf;
        return "(no HOME)";
    }
    return cfg->text[i][0] ? cfg->text[i] : "(unset)";
}

void aoe_config_print(const aoe_config *cfg, FILE *out)
{
    char buf[4200];
    fprintf(out, "%-22s %-12s %s\n", "VARIABLE", "SOURCE", "VALUE");
    for (int i = 0; i < AOE_CFG_COUNT; i++)
        fprintf(out, "%-22s %-12s %s\n", aoe_cfg_table[i].name,
                cfg->from_env[i] ? "environment" : "default", shown_value(cfg, i, buf, sizeof buf));
}

void aoe_config_print_json(const aoe_config *cfg, FILE *out)
{
    char buf[4200];
    cJSON *root = cJSON_CreateObject();
    cJSON *vars = cJSON_AddArrayToObject(root, "variables");
    for (int i = 0; i < AOE_CFG_COUNT; i++) {
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "name", aoe_cfg_table[i].name);
        cJSON_AddStringToObject(v, "value", shown_value(cfg, i, buf, sizeof buf));
        cJSON_AddStringToObject(v, "source", cfg->from_env[i] ? "environment" : "default");
        cJSON_AddStringToObject(v, "type", type_name(aoe_cfg_table[i].type));
        cJSON_AddItemToArray(vars, v);
    }
    char *s = cJSON_Print(root);
    if (s) fprintf(out, "%s\n", s);
    free(s);
    cJSON_Delete(root);
}

/* Markdown cells cannot hold a bare '|'. */
static void put_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputc('\\', out);
        fputc(*s, out);
    }
}

void aoe_config_print_markdown(FILE *out)
{
    fprintf(out, "| variable | type | default | allowed | meaning |\n");
    fprintf(out, "|---|---|---|---|---|\n");
    for (int i = 0; i < AOE_CFG_COUNT; i++) {
        const aoe_cfg_decl *d = &aoe_cfg_table[i];
        fprintf(out, "| `%s` | %s | %s | ", d->name, type_name(d->type), d->def[0] ? d->def : "-");
        put_cell(out, d->allowed ? d->allowed : "-");
        fprintf(out, " | %s |\n", d->help);
    }
}
