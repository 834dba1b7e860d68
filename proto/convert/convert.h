// Every proto <-> domain conversion of ldp::proto_convert, for adapters that
// need most of them. Prefer the specific header when one suffices.
#ifndef LDP_PROTO_CONVERT_CONVERT_H_
#define LDP_PROTO_CONVERT_CONVERT_H_

#include "proto/convert/bit_vector_convert.h"  // IWYU pragma: export
#include "proto/convert/encoding_convert.h"    // IWYU pragma: export
#include "proto/convert/estimate_convert.h"    // IWYU pragma: export
#include "proto/convert/query_convert.h"       // IWYU pragma: export
#include "proto/convert/randomizer_convert.h"  // IWYU pragma: export
#include "proto/convert/report_convert.h"      // IWYU pragma: export
#include "proto/convert/schema_convert.h"      // IWYU pragma: export
#include "proto/convert/study_convert.h"       // IWYU pragma: export
#include "proto/convert/task_convert.h"        // IWYU pragma: export
#include "proto/convert/time_convert.h"        // IWYU pragma: export

#endif  // LDP_PROTO_CONVERT_CONVERT_H_
