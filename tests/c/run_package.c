/*
 * Runs a nart package through the C API and checks the result and the error paths.
 *
 * usage: run_package PACKAGE INPUT.f32 EXPECTED.f32 N
 *   INPUT.f32 and EXPECTED.f32 hold raw float32 values: the input of shape [N, 1, 8, 8] and
 *   the expected output of shape [N, 10] (digits_cnn). Prints "ok" and exits 0 when every
 *   check holds; otherwise prints the failed check and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nart_rt.h"

static int failures = 0;

#define CHECK(cond, ...)                                             \
    do {                                                             \
        if (!(cond)) {                                               \
            fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                            \
            fprintf(stderr, "\n");                                   \
            failures++;                                              \
        }                                                            \
    } while (0)

/* Whether the last error contains `needle`. */
static int error_has(const char *needle) {
    const char *e = nart_last_error();
    return e != NULL && strstr(e, needle) != NULL;
}

static void *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s PACKAGE INPUT.f32 EXPECTED.f32 N\n", argv[0]);
        return 2;
    }
    int64_t n = atoll(argv[4]);
    size_t in_len = 0, want_len = 0, pkg_len = 0;
    float *input = read_file(argv[2], &in_len);
    float *want = read_file(argv[3], &want_len);
    uint8_t *pkg_bytes = read_file(argv[1], &pkg_len);
    if (!input || !want || !pkg_bytes) {
        fprintf(stderr, "cannot read the test files\n");
        return 2;
    }
    CHECK(strlen(nart_version()) > 0, "empty version");

    /* Open from a path; query the inputs and outputs. */
    nart_package *pkg = NULL;
    CHECK(nart_package_open(argv[1], &pkg) == 0, "%s", nart_last_error());
    if (!pkg) return 1;
    CHECK(nart_package_count(pkg, NART_INPUT) == 1, "inputs");
    CHECK(nart_package_count(pkg, NART_OUTPUT) == 1, "outputs");
    CHECK(strcmp(nart_package_name(pkg, NART_INPUT, 0), "input") == 0, "input name");
    CHECK(strcmp(nart_package_name(pkg, NART_OUTPUT, 0), "logits") == 0, "output name");
    CHECK(nart_package_dtype(pkg, NART_INPUT, 0) == NART_FLOAT, "input dtype");
    CHECK(nart_package_rank(pkg, NART_INPUT, 0) == 4, "input rank");
    const char *sym = NULL;
    CHECK(nart_package_dim(pkg, NART_INPUT, 0, 0, &sym) == -2, "dim 0 is symbolic");
    CHECK(sym != NULL && strcmp(sym, "N") == 0, "dim 0 is N");
    CHECK(nart_package_dim(pkg, NART_INPUT, 0, 2, &sym) == 8 && sym == NULL, "dim 2 is 8");
    CHECK(nart_package_dim(pkg, NART_OUTPUT, 0, 1, NULL) == 10, "output dim 1 is 10");

    /* Query errors. */
    CHECK(nart_package_name(pkg, NART_INPUT, 3) == NULL && error_has("input index 3 is out of range"),
          "%s", nart_last_error());
    CHECK(nart_package_count(pkg, 7) == -1 && error_has("neither NART_INPUT"), "%s", nart_last_error());
    CHECK(nart_package_dim(pkg, NART_INPUT, 0, 9, NULL) == -1 && error_has("dimension 9 is out of range"),
          "%s", nart_last_error());
    CHECK(nart_package_count(NULL, NART_INPUT) == -1 && error_has("the package is null"), "%s",
          nart_last_error());

    /* Run. */
    nart_session *s = NULL;
    CHECK(nart_session_create(pkg, &s) == 0, "%s", nart_last_error());
    if (!s) return 1;
    int64_t dims[4] = {n, 1, 8, 8};
    nart_tensor x = {NART_FLOAT, 4, dims, input, in_len};
    CHECK(nart_session_run(s, &x, 1) == 0, "%s", nart_last_error());
    nart_tensor y = {0, 0, NULL, NULL, 0};
    CHECK(nart_session_output(s, 0, &y) == 0, "%s", nart_last_error());
    CHECK(y.dtype == NART_FLOAT && y.rank == 2 && y.dims != NULL && y.dims[0] == n && y.dims[1] == 10, "output shape");
    CHECK(y.nbytes == want_len, "output bytes %zu, expected %zu", y.nbytes, want_len);
    if (y.nbytes == want_len) {
        const float *got = y.data;
        for (size_t i = 0; i < want_len / sizeof(float); i++) {
            CHECK(got[i] == want[i], "output[%zu] = %g, expected %g", i, got[i], want[i]);
        }
    }

    /* Run errors: wrong size, wrong dtype, wrong count, wrong shape, nulls. */
    nart_tensor short_x = {NART_FLOAT, 4, dims, input, in_len - 4};
    CHECK(nart_session_run(s, &short_x, 1) == -1 && error_has("nbytes is"), "%s", nart_last_error());
    nart_tensor int_x = {NART_INT64, 4, dims, input, in_len * 2};
    void *big = calloc(1, in_len * 2);
    int_x.data = big;
    CHECK(nart_session_run(s, &int_x, 1) == -1 && error_has("expected dtype f32, given i64"), "%s",
          nart_last_error());
    free(big);
    CHECK(nart_session_run(s, &x, 0) == -1 && error_has("expected 1 inputs ('input'), given 0"), "%s",
          nart_last_error());
    int64_t bad_dims[4] = {n, 1, 4, 16};
    nart_tensor bad_x = {NART_FLOAT, 4, bad_dims, input, in_len};
    CHECK(nart_session_run(s, &bad_x, 1) == -1 && error_has("dimension 2 must be 8"), "%s",
          nart_last_error());
    nart_tensor null_x = {NART_FLOAT, 4, dims, NULL, in_len};
    CHECK(nart_session_run(s, &null_x, 1) == -1 && error_has("data is null"), "%s", nart_last_error());
    CHECK(nart_session_run(NULL, &x, 1) == -1 && error_has("the session is null"), "%s",
          nart_last_error());
    CHECK(nart_session_output(s, 0, &y) == -1 && error_has("no output 0"), "%s", nart_last_error());

    /* Open errors: a missing file, null, garbage, a truncated copy, a newer version. */
    nart_package *bad = NULL;
    CHECK(nart_package_open("/nonexistent/x.nartpkg", &bad) == -1 && error_has("cannot read"), "%s",
          nart_last_error());
    CHECK(nart_package_open(NULL, &bad) == -1 && error_has("must not be null"), "%s", nart_last_error());
    CHECK(nart_package_from_memory((const uint8_t *)"hello", 5, &bad) == -1 &&
              error_has("not a nart package"),
          "%s", nart_last_error());
    CHECK(nart_package_from_memory(pkg_bytes, pkg_len / 2, &bad) == -1 && error_has("truncated package"),
          "%s", nart_last_error());
    pkg_bytes[8] = 9;
    CHECK(nart_package_from_memory(pkg_bytes, pkg_len, &bad) == -1 &&
              error_has("package format version 9 is not supported"),
          "%s", nart_last_error());
    pkg_bytes[8] = 1;
    /* From memory, the same package runs the same. */
    CHECK(nart_package_from_memory(pkg_bytes, pkg_len, &bad) == 0, "%s", nart_last_error());
    nart_package_free(bad);
    nart_package_free(NULL);
    nart_session_free(NULL);

    nart_session_free(s);
    nart_package_free(pkg);
    free(input);
    free(want);
    free(pkg_bytes);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
