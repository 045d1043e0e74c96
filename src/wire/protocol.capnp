# The remote protocol between ember's remote backend (src/backends/remote) and `ember serve`
# (src/serve): Cap'n Proto messages, one Request from the client at a time, a Reply only to the
# requests that say so (docs/backends/remote.md). A tensor's bytes follow its upload request or
# its download reply directly on the stream, as they are in memory: exactly the bytes its Meta
# counts, without framing or copy. Everything here is read from untrusted bytes: the server checks
# each value before use.
@0xd6a1f6e2b3c4a5b7;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("ember::wire::proto");

# Raised whenever a message changes meaning; both sides refuse a peer of another version.
const protocolVersion :UInt32 = 4;

# One member of an ir op struct (src/ir/op_fields.h walks them in declaration order).
struct Field {
  union {
    absent @0 :Void;          # an empty std::optional
    int @1 :Int64;            # an integer, an enum, a bool, a dtype
    real @2 :Float64;
    scalar @3 :Scalar;
    ints @4 :List(Int64);     # a Shape or a list of integers
    reals @5 :List(Float64);
    group @6 :List(Field);    # a nested aggregate (its members), or a list of them (one group each)
  }
}

struct Scalar {
  kind @0 :UInt8;             # ember::Scalar::Kind
  real @1 :Float64;
  int @2 :Int64;
}

struct Meta {
  shape @0 :List(Int64);
  dtype @1 :UInt8;            # ember::DType
}

# One ir op: its alternative in ir::Op, its members, and the session's tensor ids it reads and
# the new ids its outputs take.
struct OpCall {
  op @0 :UInt16;
  fields @1 :List(Field);
  inputs @2 :List(UInt64);
  outputs @3 :List(UInt64);
}

# An op sequence a session keeps, to run again by replay: a training step's batch, sent once.
struct Sequence {
  id @0 :UInt64;              # the session's name for it
  externals @1 :UInt32;       # how many tensors each replay passes in
  # Each call's inputs are references: k < 2^63 the replay's k-th tensor, 2^63 + j the j-th output
  # made earlier in the sequence; its outputs list holds one 0 per output (their ids come with
  # each replay: firstOutput, firstOutput + 1, ... in order).
  calls @2 :List(OpCall);
  # Tensors the client no longer holds when it sends the batch, by reference (as a call's inputs
  # name them): the server drops each after the last call that reads it, so the device sees it
  # dead (a fused kernel need not store it) and its memory comes back within the batch.
  dead @3 :List(UInt64);
}

struct Replay {
  sequence @0 :UInt64;
  inputs @1 :List(UInt64);    # the session's tensors, one per external
  firstOutput @2 :UInt64;     # the id of the sequence's first output; the others follow
}

struct Hello {
  version @0 :UInt32;
  credential @1 :Text;
}

struct Upload {
  id @0 :UInt64;
  meta @1 :Meta;              # its bytes follow the message
}

struct DeviceInfo {
  name @0 :Text;              # the server's local name ("cpu", "cuda:0")
  dtypes @1 :List(UInt8);     # the dtypes it supports
}

struct MemoryUsage {
  available @0 :Bool;
  bytesInUse @1 :UInt64;
  bytesPadding @2 :UInt64;
  bytesReserved @3 :UInt64;
  numberAllocs @4 :UInt64;
}

# A device's settings (ember::DeviceSettings): the dtypes as ember::DType, the precision as
# ember::MatmulPrecision.
struct Settings {
  floatDtype @0 :UInt8;
  intDtype @1 :UInt8;
  boolDtype @2 :UInt8;
  f32MatmulPrecision @3 :UInt8;
  graphReplay @4 :Bool;
}

# Why the device refused a configure (ember::DeviceError).
struct ConfigureError {
  kind @0 :UInt8;             # ember::DeviceErrorKind
  message @1 :Text;
}

# Two timestamps of the session, the earlier first.
struct Elapsed {
  from @0 :UInt64;
  to @1 :UInt64;
}

# Whether the session's device runs an op fused on inputs of these shapes and dtypes: an
# ir::Attention (Backend::runs_fused_attention) or a fused row op, LayerNorm, LayerNormGrad,
# CrossEntropy, CrossEntropyGrad or SoftmaxGrad (Backend::runs_fused_rows). The client then emits
# the fused op or its composite as a local device of that kind would.
struct Fuses {
  call @0 :OpCall;            # the op and its members (no ids)
  inputs @1 :List(Meta);
}

struct Request {
  union {
    hello @0 :Hello;          # the first request; reply: ok (or error, then the server closes)
    listDevices @1 :Void;     # reply: devices
    open @2 :UInt32;          # opens the session on the server's device i; reply: ok
    run @3 :List(OpCall);     # no reply: a failure is reported by the next sync or download
    upload @4 :Upload;        # no reply; the tensor's bytes follow
    download @5 :UInt64;      # reply: meta, then the tensor's bytes
    release @6 :List(UInt64); # no reply
    sync @7 :Void;            # reply: ok, or the first failure since the last reply
    seed @8 :UInt64;          # no reply
    memoryUsage @9 :Void;     # reply: usage
    memoryCleanup @10 :Void;  # no reply
    define @11 :Sequence;     # no reply
    replay @12 :Replay;       # no reply: as run with the sequence's calls
    settings @13 :Void;       # reply: settings (the device's, as Device::settings)
    configure @14 :Settings;  # reply: ok, or configureError
    timestamp @15 :UInt64;    # no reply: a point after the work so far on the server's clock, kept
                              # under this id
    elapsed @16 :Elapsed;     # reply: seconds (waits for the work before both timestamps)
    releaseTimestamps @17 :List(UInt64); # no reply
    fuses @18 :Fuses;         # reply: answer
  }
}

struct Reply {
  union {
    ok @0 :Void;
    error @1 :Text;
    devices @2 :List(DeviceInfo);
    meta @3 :Meta;            # the tensor's bytes follow
    usage @4 :MemoryUsage;
    settings @5 :Settings;
    configureError @6 :ConfigureError;
    seconds @7 :Float64;
    answer @8 :Bool;          # to fuses
  }
}
