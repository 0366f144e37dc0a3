export { startProber, startWorker, PropagationWorker } from './worker';
