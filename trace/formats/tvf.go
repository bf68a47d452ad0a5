package formats

import _ "github.com/traceview/traceview/trace/tvf" // traceview's own format
