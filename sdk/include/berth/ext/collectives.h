/* Berth `collectives` extension: communicators over devices of a job, and
 * collective operations on device buffers.
 *
 * A communicator joins a list of devices by global id; device_ids[r] is
 * rank r. The devices may belong to several processes of a job: every
 * process holding one of them creates the communicator with the same list
 * (creation is collective and waits for the others), and the processes
 * create their communicators over the same list in the same order.
 *
 * Each operation is called once per rank, for a rank whose device this
 * process holds, and returns at once with an event (and, for most, a new
 * output buffer on the rank's device). Every rank of the communicator calls
 * the same operations in the same order (the n-th operation of each rank
 * meets the n-th of the others); send and receive pair instead by sender,
 * receiver and order. The operations of one device run in the order they
 * were called, after the device's earlier work.
 *
 *   ALL_REDUCE       output = the elementwise reduction (`reduce_op`) of
 *                    every rank's input; same type and dims.
 *   ALL_GATHER       the inputs concatenated in rank order along dimension 0
 *                    (a scalar input gives a vector of size ranks).
 *   REDUCE_SCATTER   the reduction, cut into as many blocks along dimension 0
 *                    as there are ranks (which must divide it): rank r gets
 *                    block r.
 *   ALL_TO_ALL       the input cut into as many blocks along dimension 0 as
 *                    there are ranks; block j goes to rank j, and rank j's
 *                    output holds block j of every rank, in rank order.
 *   BROADCAST        every rank gets rank `root`'s input (every rank gives an
 *                    input of the same type and dims; only the root's is read).
 *   COLLECTIVE_PERMUTE  (source, target) rank pairs, the same on every rank,
 *                    each rank at most once as a source and once as a
 *                    target: a target gets its source's input, any other
 *                    rank zeros.
 *   SEND             the input goes to rank `peer`; no output. The event is
 *                    ready when the input may be freed or changed.
 *   RECV             a new buffer of `recv_type` and `recv_dims`, from rank
 *                    `peer`'s matching SEND (same type and size).
 *
 * Reductions: SUM, PRODUCT, MIN, MAX; on PRED, SUM and MAX are "or", PRODUCT
 * and MIN "and"; floating-point MIN and MAX propagate NaN. The result is
 * bit-identical on every rank. The element types an operation takes are the
 * ones the extension lists (any other: INVALID_ARGUMENT naming the type).
 *
 * Errors come through the event: DEADLINE_EXCEEDED when some rank does not
 * call its part within the timeout, naming the ranks that did not (with
 * their devices, and their processes and addresses); ABORTED after
 * BERTH_Collectives_Abort, on every member, with its reason; the error of a
 * member process that died. After any of them the communicator is broken:
 * later operations fail with the first error. Arguments the call can check
 * (a rank of another process, a buffer on another device, dims a ranks
 * count does not divide) fail the call itself with INVALID_ARGUMENT.
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_COLLECTIVES_H_
#define BERTH_EXT_COLLECTIVES_H_

#include "berth/c_api.h"

/* 1: the first. */
#define BERTH_COLLECTIVES_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BERTH_Collectives_Communicator BERTH_Collectives_Communicator;

typedef int32_t BERTH_Collectives_Op;
enum BERTH_Collectives_Op_Values {
  BERTH_Collectives_Op_ALL_REDUCE = 0,
  BERTH_Collectives_Op_ALL_GATHER = 1,
  BERTH_Collectives_Op_REDUCE_SCATTER = 2,
  BERTH_Collectives_Op_ALL_TO_ALL = 3,
  BERTH_Collectives_Op_BROADCAST = 4,
  BERTH_Collectives_Op_COLLECTIVE_PERMUTE = 5,
  BERTH_Collectives_Op_SEND = 6,
  BERTH_Collectives_Op_RECV = 7
};

typedef int32_t BERTH_Collectives_ReduceOp;
enum BERTH_Collectives_ReduceOp_Values {
  BERTH_Collectives_ReduceOp_SUM = 0,
  BERTH_Collectives_ReduceOp_PRODUCT = 1,
  BERTH_Collectives_ReduceOp_MIN = 2,
  BERTH_Collectives_ReduceOp_MAX = 3
};

typedef struct BERTH_Collectives_Create_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const int64_t* device_ids; /* borrowed; global ids, no repeats, at least one */
  size_t num_devices;
  /* How long creation, and each operation that gives no timeout of its own,
   * waits for the other ranks; <= 0: the plugin's default. */
  int64_t timeout_ms;
  BERTH_Collectives_Communicator* communicator; /* out; destroyed by the caller */
} BERTH_Collectives_Create_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Collectives_Create_Args, communicator)

/* Creates a communicator: INVALID_ARGUMENT for an empty list, a repeated or
 * unknown id, or a list holding none of this process's devices;
 * DEADLINE_EXCEEDED naming the ranks whose processes did not create it
 * within the timeout. Since: collectives 1. */
typedef BERTH_Error* BERTH_Collectives_Create(BERTH_Collectives_Create_Args* args);

typedef struct BERTH_Collectives_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Collectives_Communicator* communicator;
} BERTH_Collectives_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Collectives_Destroy_Args, communicator)

/* Destroys a communicator. Operations still pending fail with ABORTED first;
 * their events and outputs stay valid. Since: collectives 1. */
typedef BERTH_Error* BERTH_Collectives_Destroy(BERTH_Collectives_Destroy_Args* args);

typedef struct BERTH_Collectives_Abort_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Collectives_Communicator* communicator;
  const char* reason; /* borrowed; may be NULL when reason_size is 0 */
  size_t reason_size;
} BERTH_Collectives_Abort_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Collectives_Abort_Args, reason_size)

/* Fails every pending and later operation of the communicator with ABORTED
 * and `reason`, in this process at once and in the other member processes
 * as soon as they learn of it through the job's key-value store (well under
 * a second). Since: collectives 1. */
typedef BERTH_Error* BERTH_Collectives_Abort(BERTH_Collectives_Abort_Args* args);

typedef struct BERTH_Collectives_Run_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Collectives_Communicator* communicator;
  BERTH_Collectives_Op op;
  int64_t rank;                         /* the calling rank: its device must be this process's */
  BERTH_Buffer* input;                  /* borrowed; on the rank's device; NULL for RECV */
  BERTH_Collectives_ReduceOp reduce_op; /* ALL_REDUCE, REDUCE_SCATTER */
  int64_t root;                         /* BROADCAST */
  int64_t peer;                         /* SEND, RECV */
  /* COLLECTIVE_PERMUTE: num_pairs (source, target) rank pairs, flattened. */
  const int64_t* pairs;
  size_t num_pairs;
  BERTH_Buffer_Type recv_type; /* RECV */
  const int64_t* recv_dims;    /* RECV; borrowed */
  size_t recv_num_dims;
  int64_t timeout_ms;   /* <= 0: the communicator's */
  BERTH_Buffer* output; /* out; NULL for SEND; destroyed by the caller */
  BERTH_Event* done;    /* out; destroyed by the caller */
} BERTH_Collectives_Run_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Collectives_Run_Args, done)

/* Starts one operation on one rank. Since: collectives 1. */
typedef BERTH_Error* BERTH_Collectives_Run(BERTH_Collectives_Run_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_Collectives). */
typedef struct BERTH_Collectives_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_COLLECTIVES_EXTENSION_VERSION */
  /* The element types every operation takes; owned by the plugin. */
  const BERTH_Buffer_Type* element_types;
  size_t num_element_types;
  BERTH_Collectives_Create* create;
  BERTH_Collectives_Destroy* destroy;
  BERTH_Collectives_Abort* abort;
  BERTH_Collectives_Run* run;
} BERTH_Collectives_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Collectives_Extension, run)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_COLLECTIVES_H_ */
