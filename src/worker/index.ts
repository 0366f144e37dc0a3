export { startWorker, PropagationWorker } from './worker';
export { getPropagationStatus } from './propagation-status';
export type { PropagationStatus, ServerPropagation, PropagationState } from './propagation-status';
