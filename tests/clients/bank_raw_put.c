/* Test tool: stores a record in a bank raw, bypassing every check the bank
 * makes (what a hand-edited or hostile bank holds), so tests can show the
 * readers refuse it. Usage:
 *   bank_raw_put BANK FINGERPRINT KEYHEX G0 L0 [NAME=VALUE ...]
 * (work_dim 1, global G0, local L0, each NAME=VALUE a -D parameter). */
#include "store/bank.h"
#include "store/bank_internal.h"
#include "store/record_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    MDB_dbi dbi;
    aoe_key key;
    uint8_t enc[AOE_RECORD_ENCODED_MAX];
    size_t n;
} raw_ctx;

static int put_raw(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    raw_ctx *c = vctx;
    uint8_t kb[16];
    bank_key_bytes(&c->key, kb);
    MDB_val k = {16, kb}, d = {c->n, c->enc};
    int rc = mdb_put(txn, c->dbi, &k, &d, 0);
    return rc ? rc : bank_bump_generation(b, txn);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: bank_raw_put BANK FINGERPRINT KEYHEX G0 L0 [NAME=VALUE ...]\n");
        return 2;
    }
    raw_ctx c;
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "opencl");
    strcpy(r.kernel_name, "raw");
    r.policy.work_dim = 1;
    r.policy.global[0] = strtoull(argv[4], NULL, 10);
    r.policy.local[0] = strtoull(argv[5], NULL, 10);
    for (int i = 6; i < argc && r.policy.n_params < AOE_MAX_PARAMS; i++) {
        aoe_param *p = &r.policy.params[r.policy.n_params++];
        const char *eq = strrchr(argv[i], '=');
        size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        snprintf(p->name, sizeof p->name, "%.*s", (int)len, argv[i]);
        p->value = eq ? strtoll(eq + 1, NULL, 10) : 1;
        p->kind = AOE_PARAM_DEFINE;
    }
    r.default_us = 2, r.tuned_us = 1;
    strcpy(r.summary, "bank_raw_put");
    if (aoe_key_from_hex(argv[3], &c.key)) return fprintf(stderr, "bad key %s\n", argv[3]), 2;
    c.n = aoe_record_encode(&r, c.enc, sizeof c.enc);
    char err[512] = "";
    aoe_bank *b = aoe_bank_open(argv[1], AOE_BANK_READWRITE, err, sizeof err);
    if (!b) return fprintf(stderr, "%s\n", err), 1;
    int rc = bank_fp_dbi(b, argv[2], true, &c.dbi);
    if (!rc) rc = bank_write(b, put_raw, &c);
    aoe_bank_close(b);
    if (rc) return fprintf(stderr, "bank_raw_put: write failed (%d)\n", rc), 1;
    return 0;
}
