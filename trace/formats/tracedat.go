package formats

import _ "github.com/traceview/traceview/trace/tracedat"
