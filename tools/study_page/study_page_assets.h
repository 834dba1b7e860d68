// The live study page's static parts: its markup, style and script. They
// hold no study data (that comes from /api/fragment, behind the token), so
// they are served to anyone, and kept here as text so the page needs no
// files beside the `ldp` binary.
#ifndef LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_ASSETS_H_
#define LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_ASSETS_H_

#include <string_view>

namespace ldp {

extern const std::string_view kStudyPageHtml;
extern const std::string_view kStudyPageStyle;
// Asks for the analyst token (or takes it once from "#token=..." in the
// address, then removes it from the address), keeps it in sessionStorage,
// and swaps in /api/fragment every two seconds. A refused token clears it
// and asks again. Sets data-state on <body>: "login", "live" or "offline".
extern const std::string_view kStudyPageScript;

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_ASSETS_H_
