package formats

import _ "github.com/traceview/traceview/trace/perfettopb" // native Perfetto protobuf traces
