/* Device fingerprints: the OpenCL string is what every bank is keyed by, so
 * it must not change; the architecture field appears only when named. */
#include "store/fingerprint.h"

#include <criterion/criterion.h>
#include <string.h>

Test(fingerprint, opencl_format_is_unchanged)
{
    char fp[256];
    aoe_fingerprint_format(fp, sizeof fp, "opencl", " The pocl project ", "cpu-x86|64", "6.0\n", 2);
    cr_assert_str_eq(fp, "opencl|The pocl project|cpu-x86/64|6.0|cu=2");
    aoe_device_desc d = {"opencl", "The pocl project", "cpu-x86|64", "6.0", 2, ""};
    char fp2[256];
    aoe_fingerprint_build(fp2, sizeof fp2, &d);
    cr_assert_str_eq(fp2, fp);
    d.arch = NULL;
    aoe_fingerprint_build(fp2, sizeof fp2, &d);
    cr_assert_str_eq(fp2, fp);
    char arch[32] = "junk";
    cr_assert_str_eq(aoe_fingerprint_arch(fp, arch, sizeof arch), "");
}

Test(fingerprint, truncation_without_arch_is_as_before)
{
    /* a long driver string: cut at the end, the compute units lost, exactly
     * as fingerprints were always cut (such banks exist) */
    char longdrv[300], fp[64];
    memset(longdrv, 'd', sizeof longdrv - 1), longdrv[sizeof longdrv - 1] = '\0';
    aoe_fingerprint_format(fp, sizeof fp, "opencl", "v", "n", longdrv, 8);
    cr_assert_eq(strlen(fp), sizeof fp - 1);
    cr_assert(!strncmp(fp, "opencl|v|n|ddd", 14), "%s", fp);
    cr_assert(!strstr(fp, "cu="), "%s", fp);
}

Test(fingerprint, arch_is_appended_and_read_back)
{
    aoe_device_desc d = {"cuda",   "NVIDIA Corporation", "NVIDIA H100 80GB HBM3", "550.54.15", 132,
                         " sm_90 "};
    char fp[256], arch[32];
    aoe_fingerprint_build(fp, sizeof fp, &d);
    cr_assert_str_eq(fp,
                     "cuda|NVIDIA Corporation|NVIDIA H100 80GB HBM3|550.54.15|cu=132|arch=sm_90");
    cr_assert_str_eq(aoe_fingerprint_arch(fp, arch, sizeof arch), "sm_90");
    /* a separator in the architecture cannot forge a seventh field */
    d.arch = "sm_90|x";
    aoe_fingerprint_build(fp, sizeof fp, &d);
    cr_assert_str_eq(aoe_fingerprint_arch(fp, arch, sizeof arch), "sm_90/x");
    /* a short buffer cuts the device fields, never the architecture */
    char shortfp[48];
    d.arch = "sm_90";
    aoe_fingerprint_build(shortfp, sizeof shortfp, &d);
    cr_assert_eq(strlen(shortfp), sizeof shortfp - 1);
    cr_assert(strstr(shortfp, "|cu=132|arch=sm_90"), "%s", shortfp);
    cr_assert_str_eq(aoe_fingerprint_arch(shortfp, arch, sizeof arch), "sm_90");
    /* the fields before the tail still end with the separator's count right */
    cr_assert(!strncmp(shortfp, "cuda|NVIDIA Corporation|", 24), "%s", shortfp);
}

Test(fingerprint, arch_of_other_strings)
{
    char arch[8];
    cr_assert_str_eq(aoe_fingerprint_arch(NULL, arch, sizeof arch), "");
    cr_assert_str_eq(aoe_fingerprint_arch("a|b|c|d|cu=1|notarch", arch, sizeof arch), "");
    cr_assert_str_eq(aoe_fingerprint_arch("a|b|c|d|cu=1|arch=gfx90a", arch, sizeof arch), "gfx90a");
    cr_assert_str_eq(aoe_fingerprint_arch("a|b|c|d|cu=1|arch=verylongname", arch, sizeof arch),
                     "verylon");
}
