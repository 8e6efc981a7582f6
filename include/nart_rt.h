/*
 * nart_rt.h: the C API of the nart runtime (crate nart-rt-c, library libnart_rt_c.so).
 *
 * Open a package written by `nart compile`, query its inputs and outputs, load it into a
 * session and run it. Functions returning int return 0 on success and -1 on failure; the
 * others document their failure value. After a failure, nart_last_error() says what went
 * wrong. Null pointers, out-of-range indices and buffers of the wrong size are errors, and no
 * Rust panic crosses this boundary.
 *
 * Element types are ONNX TensorProto.DataType codes (NART_FLOAT = 1, NART_INT64 = 7, ...).
 * Tensor data is dense, row-major, in the machine's byte order.
 *
 * Written by hand; crates/nart-rt-c/tests/c_api.rs checks that every function exported by the
 * library is declared here and compiles and runs tests/c/run_package.c against it.
 */
#ifndef NART_RT_H
#define NART_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opened package (its manifest, checked, and its blobs). */
typedef struct NartPackage nart_package;
/* A package loaded for running, and the outputs of its last run. */
typedef struct NartSession nart_session;

/* A tensor view: passed in to nart_session_run, filled by nart_session_output. */
typedef struct nart_tensor {
    int32_t dtype;        /* ONNX element type code */
    size_t rank;          /* number of dimensions */
    const int64_t *dims;  /* rank sizes */
    const void *data;     /* the elements, row-major */
    size_t nbytes;        /* the size of data in bytes */
} nart_tensor;

/* The kind argument of the query functions. */
#define NART_INPUT 0
#define NART_OUTPUT 1

/* Some ONNX element type codes. */
#define NART_FLOAT 1
#define NART_UINT8 2
#define NART_INT8 3
#define NART_INT32 6
#define NART_INT64 7
#define NART_BOOL 9
#define NART_DOUBLE 11

/* The library's version, e.g. "0.1.0". */
const char *nart_version(void);

/* The message of the last failure on this thread ("" if none); valid until the next call. */
const char *nart_last_error(void);

/* Opens the package at path (checks magic, format version, checksums, manifest). */
int nart_package_open(const char *path, nart_package **out);
/* Opens a package from len bytes at data (the bytes are copied). */
int nart_package_from_memory(const uint8_t *data, size_t len, nart_package **out);
/* Frees a package (NULL is allowed); sessions created from it stay valid. */
void nart_package_free(nart_package *pkg);

/* The number of inputs (kind NART_INPUT) or outputs (NART_OUTPUT); -1 on error. */
int64_t nart_package_count(const nart_package *pkg, int32_t kind);
/* The name of input/output index; valid while the package lives; NULL on error. */
const char *nart_package_name(const nart_package *pkg, int32_t kind, size_t index);
/* The ONNX element type code of input/output index; -1 on error. */
int32_t nart_package_dtype(const nart_package *pkg, int32_t kind, size_t index);
/* The rank of input/output index; -2 for an unknown rank, -1 on error. */
int64_t nart_package_rank(const nart_package *pkg, int32_t kind, size_t index);
/* Dimension dim of input/output index: its size, or -2 for a symbolic dimension (its name,
 * e.g. "N", stored in *symbol when symbol is not NULL; NULL for a static one); -1 on error. */
int64_t nart_package_dim(const nart_package *pkg, int32_t kind, size_t index, size_t dim,
                         const char **symbol);

/* Loads every segment of pkg with the target runtimes nart ships. */
int nart_session_create(const nart_package *pkg, nart_session **out);
/* Frees a session (NULL is allowed). */
void nart_session_free(nart_session *session);
/* Runs the session on n_inputs tensors, in the package's input order; they are checked
 * against the manifest (count, dtype, rank, dims, symbolic dims, nbytes). */
int nart_session_run(nart_session *session, const nart_tensor *inputs, size_t n_inputs);
/* Output index of the last successful run; the view is valid until the next run or free. */
int nart_session_output(const nart_session *session, size_t index, nart_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* NART_RT_H */
