/** Command ids, as contributed in the manifest (a test keeps the two equal). */
export const commandIds = {
  restartServer: 'rolloutEvidence.restartServer',
  showOutput: 'rolloutEvidence.showOutput',
  probeQuiescence: 'rolloutEvidence.probeQuiescence',
  refreshRollouts: 'rolloutEvidence.refreshRollouts',
  filterRollouts: 'rolloutEvidence.filterRollouts',
  sortRollouts: 'rolloutEvidence.sortRollouts',
  newFixtureBundle: 'rolloutEvidence.newFixtureBundle',
  showTimeline: 'rolloutEvidence.showTimeline',
  showWorkspaceProblems: 'rolloutEvidence.showWorkspaceProblems',
  showExperimentSummary: 'rolloutEvidence.showExperimentSummary',
} as const;
