/**
 * Accessible names that tests and assistive tools find controls by. They stay in English in
 * every language (the issue fixes them); where the visible text is translated, the control
 * carries the English name as its aria-label.
 */
export const NAMES = {
  run: 'Run',
  memory: 'Memory',
  blackboard: 'Blackboard',
  history: 'History',
  settings: 'Settings',
  task: 'Task',
  start: 'Start',
  pause: 'Pause',
  resume: 'Resume',
  stop: 'Stop',
  steps: 'Steps',
  currentScreen: 'Current screen',
  answer: 'Answer',
  send: 'Send',
  allow: 'Allow',
  deny: 'Deny',
  pending: 'Pending',
  recentSteps: 'Recent steps',
  summary: 'Summary',
  screenshots: 'Screenshots',
  conversation: 'Conversation',
  searchSessions: 'Search sessions',
  step: 'Step',
  replay: 'Replay',
  exportReport: 'Export report',
  baseUrl: 'Base URL',
  model: 'Model',
  testConnection: 'Test connection',
  save: 'Save',
} as const;

export type NameKey = keyof typeof NAMES;
