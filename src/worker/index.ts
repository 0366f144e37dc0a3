export { startWorker, PropagationWorker } from './worker';
