/* For the Windows tests under Wine only (scripts/test-windows.sh): Wine 8 has no bcryptprimitives.dll, whose
 * ProcessPrng Rust's standard library calls for random bytes on Windows. This stand-in gives the same bytes
 * source Windows' own ProcessPrng uses, the system-preferred RNG, through Wine's bcrypt. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    return BCryptGenRandom(NULL, data, (ULONG)len, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0;
}
