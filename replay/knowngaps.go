package replay

// KnownGaps maps fidelity check IDs (Check.ID) that miss their bound to the
// model gap that explains the miss (docs/notes-D.md has the details).
var KnownGaps = map[string]string{}
