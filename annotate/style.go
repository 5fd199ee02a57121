package annotate

// ReportCSS is the report page's style sheet. Other pages mcptest writes
// (the history page) use it as it is, so they read as the report does.
func ReportCSS() string { return htmlCSS }
