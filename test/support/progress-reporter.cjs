/**
 * A Jest reporter for CI, beside the default one: a line when a test file starts and one when it ends, with the
 * seconds it took. The default reporter names a file only once it is over (and only on a terminal while it runs),
 * so a file that never ends would go unnamed; .ci/run streams these lines as the lanes go, and names the file a
 * lane was in when its deadline passed.
 */
const path = require('node:path');

class ProgressReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.began = new Map();
  }

  name(test) {
    return path.relative(this.root, test.path);
  }

  onTestFileStart(test) {
    this.began.set(test.path, Date.now());
    process.stderr.write(`[file] started ${this.name(test)}\n`);
  }

  onTestFileResult(test, result) {
    const seconds = ((Date.now() - (this.began.get(test.path) ?? Date.now())) / 1000).toFixed(1);
    const failed = result.numFailingTests > 0 || result.testExecError != null;
    process.stderr.write(`[file] ${failed ? 'failed' : 'passed'} ${this.name(test)} in ${seconds} s\n`);
  }
}

module.exports = ProgressReporter;
