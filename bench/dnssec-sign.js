'use strict';
// `npm run bench:dnssec-sign`: signing a generated zone from scratch, file to file, with the service's signer
// (dist/src/dns/dnssec/zone-signer.js, one Node process) and with Knot's own signer (kzonesign, Knot 3.x), on the
// same zone file, with the same algorithm (ECDSAP256SHA256, a KSK and a ZSK) and the same denial (NSEC; NSEC3
// with no salt and 0 extra iterations, RFC 9276). Wall time, CPU time (user + system) and peak RSS of each run
// come from GNU time; written to bench/RESULTS-dnssec-sign.md.
//
// Why kzonesign for Knot: it is knotd's signing code (the same zone loader, key manager and signer, with the
// policy's signing-threads) run once over a zone file and written back, without a server around it; timing
// knotd until the signed serial is served would add the server's start-up and the polling interval to Knot's
// time, and nothing comparable to ours. Knot runs with signing-threads 1 (its default) and with as many threads
// as the machine has cores; ours likewise, with one thread and with a pool of that many. Both sides include reading and parsing the
// zone file and writing the signed one; ours also reports its phases (parse, sign, render + write).
//
// Ours runs with one thread and with a pool of as many threads as Knot's second run (SigningPool, what the
// service uses for a large zone). BENCH_DNSSEC_BASELINE=<a dist/ directory built from an earlier commit> adds
// that commit's signer (one thread and the pool) to the same run, for before/after, up to
// BENCH_DNSSEC_BASELINE_MAX records (default 100000); BENCH_DNSSEC_BASELINE_FIRST=1 runs it before ours, so
// that runs taken in turn alternate which side goes first; BENCH_DNSSEC_POOL_ONLY=1 leaves out the one-thread runs.
//
// Sizes: BENCH_DNSSEC_SIZES (comma-separated, default "100000,1000000"). Outputs up to BENCH_DNSSEC_VERIFY_MAX
// records (default 100000) are checked with `kzonecheck --dnssec on` after the timing, so both sides are shown
// to have made a valid signed zone.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { execFileSync, spawn } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const TMP = path.join(__dirname, '.tmp', 'dnssec-sign');
const ZONE = 'bench.example';
const SIZES = (process.env.BENCH_DNSSEC_SIZES ?? '100000,1000000').split(',').map(Number);
const VERIFY_MAX = Number(process.env.BENCH_DNSSEC_VERIFY_MAX ?? 100_000);
const DENIALS = ['NSEC', 'NSEC3'];
const BASELINE = process.env.BENCH_DNSSEC_BASELINE;
const BASELINE_MAX = Number(process.env.BENCH_DNSSEC_BASELINE_MAX ?? 100_000);
const BASELINE_FIRST = process.env.BENCH_DNSSEC_BASELINE_FIRST === '1';
// BENCH_DNSSEC_POOL_ONLY=1: only the runs with as many threads as cores (ours, the baseline's, Knot's)
const POOL_ONLY = process.env.BENCH_DNSSEC_POOL_ONLY === '1';
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

// ---- the worker: our signer in a process of its own, so its CPU time and peak memory are its alone ----

async function worker([input, denialName, output, threadsArg, distArg]) {
  const dist = path.join(distArg || path.join(ROOT, 'dist'), 'src', 'dns');
  const { parseZoneFile, renderZoneFile } = require(path.join(dist, 'zone-file'));
  const { DEFAULT_ALLOWED_TTLS } = require(path.join(dist, 'ttl'));
  const { DNSSEC_ALGORITHMS } = require(path.join(dist, 'dnssec', 'algorithms'));
  const { dnskeyOf, dnskeyTag } = require(path.join(dist, 'dnssec', 'keys'));
  const { canonicalRdata } = require(path.join(dist, 'dnssec', 'canonical-rdata'));
  const { signZone } = require(path.join(dist, 'dnssec', 'zone-signer'));
  const { SigningPool } = threadsArg > 1 ? require(path.join(dist, 'dnssec', 'signing-pool')) : {};
  const threads = Number(threadsArg ?? 1);
  const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;

  let at = process.hrtime.bigint();
  const parsed = parseZoneFile(ZONE, fs.readFileSync(input, 'utf8'), DEFAULT_ALLOWED_TTLS);
  if (!parsed.ok)
    throw new Error(
      parsed.problems
        .slice(0, 5)
        .map((p) => p.message)
        .join('\n'),
    );
  const parseMs = ms(at);

  at = process.hrtime.bigint();
  const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const key = (role) => {
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, role === 'KSK');
    return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
  };
  const now = Math.floor(Date.now() / 1000);
  // the validity Knot's default policy gives (rrsig-lifetime 14 days), inception an hour back
  const window = { inception: now - 3600, expiration: () => now + 14 * 86400 };
  const denial = denialName === 'NSEC' ? { kind: 'nsec' } : { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false };
  let added;
  if (threads > 1) {
    // the service's way for a large zone (zone-signing.ts): the signatures on a pool of threads, one per core
    const pool = new SigningPool(threads);
    added = await pool.signZone(ZONE, parsed.records, [key('KSK'), key('ZSK')], denial, window);
    await pool.close();
  } else added = signZone(ZONE, parsed.records, [key('KSK'), key('ZSK')], denial, window, canonicalRdata);
  const signMs = ms(at);

  at = process.hrtime.bigint();
  fs.writeFileSync(output, renderZoneFile(ZONE, [...parsed.records, ...added]));
  const writeMs = ms(at);
  process.stdout.write(JSON.stringify({ parseMs, signMs, writeMs, added: added.length }));
}

// ---- the benchmark ----

function need(binary, pkg) {
  try {
    execFileSync('sh', ['-c', `command -v ${binary} || test -x /usr/sbin/${binary}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${binary} is missing: apt-get install ${pkg} (scripts/ensure-test-tools.sh installs it)`);
  }
}

/** N records in N RRsets on N/2 names (an A and an AAAA each), behind an SOA, an NS and its glue */
function generateZone(file, size) {
  const out = fs.openSync(file, 'w');
  const lines = [
    `$ORIGIN ${ZONE}.`,
    '@ 3600 IN SOA ns1 hostmaster 2026112401 7200 3600 1209600 300',
    '@ 3600 IN NS ns1',
    'ns1 3600 IN A 192.0.2.1',
  ];
  for (let i = 0; i < size; i++) {
    const n = i >> 1;
    lines.push(
      i % 2 === 0
        ? `h${n} 3600 IN A 10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
        : `h${n} 3600 IN AAAA 2001:db8::${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}`,
    );
    if (lines.length >= 10_000) fs.writeSync(out, `${lines.splice(0).join('\n')}\n`);
  }
  fs.writeSync(out, `${lines.join('\n')}\n`);
  fs.closeSync(out);
}

/** runs a command under GNU time: wall, user and system seconds, peak RSS in KiB */
function timed(command, args, { cwd } = {}) {
  const timeFile = path.join(TMP, `time-${process.pid}-${Date.now()}.txt`);
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%e %U %S %M', command, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const measured = fs.existsSync(timeFile) ? fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop() : '';
      fs.rmSync(timeFile, { force: true });
      if (code !== 0) return reject(new Error(`${path.basename(command)} exited ${code}: ${stderr.slice(-2000)}`));
      const [wall, user, system, rssKiB] = measured.split(' ').map(Number);
      resolve({ wall, cpu: user + system, rssMiB: rssKiB / 1024, stdout, stderr });
    });
  });
}

async function signOurs(input, denial, output, size, threads, dist = '') {
  // room for the whole zone, its signatures and the rendered text in one heap
  const heapMiB = Math.max(4096, Math.ceil(size / 1000) * 12);
  const run = await timed(process.execPath, [`--max-old-space-size=${heapMiB}`, __filename, '--worker', input, denial, output, String(threads), dist]);
  return { ...run, phases: JSON.parse(run.stdout) };
}

async function signKnot(input, denial, outDir, threads) {
  const dir = fs.mkdtempSync(path.join(TMP, 'knot-'));
  fs.mkdirSync(path.join(dir, 'db'));
  fs.mkdirSync(outDir, { recursive: true });
  // Knot's defaults otherwise: a KSK and a ZSK (single-type-signing off), rrsig-lifetime 14 days
  const config = `database:
    storage: "${dir}/db"
policy:
  - id: bench
    algorithm: ecdsap256sha256
    signing-threads: ${threads}
    nsec3: ${denial === 'NSEC3' ? 'on' : 'off'}
    nsec3-iterations: 0
    nsec3-salt-length: 0
    nsec3-opt-out: off
zone:
  - domain: ${ZONE}.
    file: "${input}"
    dnssec-signing: on
    dnssec-policy: bench
`;
  fs.writeFileSync(path.join(dir, 'knot.conf'), config);
  try {
    return await timed('kzonesign', ['-c', path.join(dir, 'knot.conf'), '-o', outDir, `${ZONE}.`]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** RRSIG records in a zone file, ours ("owner ttl IN RRSIG …") or Knot's ("owner\tttl\tRRSIG\t…") */
async function countSignatures(file) {
  let count = 0;
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) if (/^\S+\s+\d+\s+(IN\s+)?RRSIG\s/.test(line)) count++;
  return count;
}

function verify(file) {
  try {
    execFileSync('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file], { stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 });
    return 'kzonecheck ok';
  } catch (error) {
    return `kzonecheck FAILED: ${`${error.stdout ?? ''}${error.stderr ?? ''}`.split('\n').slice(0, 3).join(' ')}`;
  }
}

function machine() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const sh = (cmd) => {
    try {
      // only the end trimmed: free's header line is aligned by its leading blanks
      return execFileSync('sh', ['-c', cmd], { encoding: 'utf8' }).trimEnd();
    } catch {
      return 'unknown';
    }
  };
  return {
    date: new Date().toISOString(),
    nproc: sh('nproc'),
    freeG: sh('free -g'),
    cpuModel: (cpuinfo.match(/^model name\s*:\s*(.+)$/m) || [])[1] ?? 'unknown',
    kernel: os.release(),
    node: process.version,
    knot: sh('kzonesign --version').split('\n')[0],
    commit: sh(`git -C ${ROOT} rev-parse --short=12 HEAD`),
    // the commit the baseline's dist was built from, when it says (a file COMMIT beside dist/)
    baseline: BASELINE ? sh(`cat ${path.join(BASELINE, '..', 'COMMIT')} 2>/dev/null || echo ${BASELINE}`) : undefined,
    loadBefore: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

/** the results so far: written after every run, so a run stopped on a busy machine still leaves what it measured */
function writeReport(info, threads, rows, started, complete) {
  const table = rows
    .map(
      (r) =>
        `| ${r.size.toLocaleString('en')} | ${r.denial} | ${r.signer} | ${r.wall.toFixed(1)} | ${r.cpu.toFixed(1)} | ${r.rssMiB.toFixed(0)} | ${r.signatures.toLocaleString('en')} | ${r.verified} | ${r.phases} |`,
    )
    .join('\n');
  const report = `# DNSSEC signing from scratch (\`npm run bench:dnssec-sign\`)

Date: ${info.date}. Commit: ${info.commit}. Node ${info.node}, ${info.knot}, Linux ${info.kernel}.
Machine: ${info.cpuModel}; \`nproc\` ${info.nproc}; load average before the run ${info.loadBefore}, at the time of writing ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}.
**Shared machine:** other agents ran builds and test suites at the same time, so wall times carry their noise;
CPU time is the steadier measure.

\`\`\`
$ free -g
${info.freeG}
\`\`\`

What is measured: one generated zone per size (N records in N RRsets on N/2 names, an A and an AAAA each, plus
the SOA, NS and glue) signed from scratch, file to file: read and parse the unsigned file, make the DNSKEY
RRset, the NSEC or NSEC3 chain and every RRSIG (ECDSAP256SHA256, a KSK and a ZSK, 14-day validity), write the
signed file. NSEC3 is RFC 9276's: no salt, 0 extra iterations, no opt-out.

- **Zonekeeper**: in a Node process of its own (\`bench/dnssec-sign.js --worker\`): \`signZone\` of
  \`dist/src/dns/dnssec/zone-signer.js\` on one thread, and \`SigningPool.signZone\`
  (\`dist/src/dns/dnssec/signing-pool.js\`, what the service uses for a large zone) with ${threads} signing
  threads, the same count as Knot's second run; the thread count excludes the main thread, which parses, plans
  the chain and writes. Its phases are in the last column.${info.baseline ? `
- **Zonekeeper before**: the signer (one thread, and the pool) as built from ${info.baseline}, on the same zone in the same run.` : ''}
- **Knot**: \`kzonesign\` (knot-dnssecutils) with a policy of the same algorithm and denial and a fresh key
  database (its key generation, a few milliseconds, is included). kzonesign is knotd's own zone loader, key
  manager and signer run once without the server, so its time is Knot's signing time and nothing else (timing
  knotd until it serves the signed serial would add start-up and polling). It runs with \`signing-threads\` 1,
  Knot's default, and ${threads}, the machine's cores. Knot also publishes CDS/CDNSKEY for its new KSK (two
  more RRSIGs).
- Wall, CPU (user + system) and peak RSS are GNU time's (\`/usr/bin/time -f '%e %U %S %M'\`). "Check" is
  \`kzonecheck --dnssec on\` over the signed output, run after the timing (sizes up to ${VERIFY_MAX.toLocaleString('en')}).

| records | denial | signer | wall s | CPU s | peak RSS MiB | RRSIGs | check | phases (ours) |
| ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |
${table}

${complete ? `Total run time: ${((Date.now() - started) / 60000).toFixed(1)} min.` : `**Incomplete:** the run was still going (or was stopped) after ${((Date.now() - started) / 60000).toFixed(1)} min; the rows above are the runs that finished.`}
`;
  fs.writeFileSync(path.join(__dirname, 'RESULTS-dnssec-sign.md'), report);
}

async function main() {
  need('kzonesign', 'knot-dnssecutils');
  need('kzonecheck', 'knot-dnssecutils');
  if (!fs.existsSync('/usr/bin/time')) throw new Error('GNU time is missing: apt-get install time');
  if (!fs.existsSync(path.join(ROOT, 'dist', 'src', 'dns', 'dnssec', 'zone-signer.js'))) throw new Error('run `npm run build` first');
  fs.rmSync(TMP, { recursive: true, force: true });
  fs.mkdirSync(TMP, { recursive: true });
  const info = machine();
  const threads = Number(info.nproc) || os.cpus().length;
  const rows = [];
  const started = Date.now();
  for (const size of SIZES) {
    const input = path.join(TMP, `${ZONE}.${size}.zone`);
    generateZone(input, size);
    log(`zone of ${size} records generated (${(fs.statSync(input).size / 1048576).toFixed(1)} MiB)`);
    for (const denial of DENIALS) {
      const counts = POOL_ONLY && threads > 1 ? [threads] : [1, ...(threads > 1 ? [threads] : [])];
      const ours = counts.map((t) => [
        `Zonekeeper signer (${t} thread${t > 1 ? 's' : ''})`,
        () => signOurs(input, denial, path.join(TMP, `ours-${size}-${denial}-${t}.zone`), size, t),
        path.join(TMP, `ours-${size}-${denial}-${t}.zone`),
      ]);
      const before =
        BASELINE && size <= BASELINE_MAX
          ? counts.map((t) => [
              `Zonekeeper signer before (${info.baseline}, ${t} thread${t > 1 ? 's' : ''})`,
              () => signOurs(input, denial, path.join(TMP, `before-${size}-${denial}-${t}.zone`), size, t, BASELINE),
              path.join(TMP, `before-${size}-${denial}-${t}.zone`),
            ])
          : [];
      const knot = counts.map((t) => {
        const outDir = path.join(TMP, `knot-${size}-${denial}-${t}`);
        return [
          `Knot kzonesign (signing-threads ${t})`,
          () => signKnot(input, denial, outDir, t), // kzonesign names its output after the input file
          path.join(outDir, path.basename(input)),
        ];
      });
      const runs = BASELINE_FIRST ? [...before, ...ours, ...knot] : [...ours, ...before, ...knot];
      for (const [signer, run, output] of runs) {
        log(`${size} records, ${denial}: ${signer} …`);
        const result = await run();
        const signatures = await countSignatures(output);
        const verified = size <= VERIFY_MAX ? verify(output) : 'not checked (size)';
        const phases = result.phases
          ? `parse ${(result.phases.parseMs / 1000).toFixed(1)} s, sign ${(result.phases.signMs / 1000).toFixed(1)} s, render+write ${(result.phases.writeMs / 1000).toFixed(1)} s`
          : '';
        log(
          `  wall ${result.wall.toFixed(1)} s, CPU ${result.cpu.toFixed(1)} s, peak RSS ${result.rssMiB.toFixed(0)} MiB, ${signatures} RRSIGs, ${verified} ${phases}`,
        );
        rows.push({ size, denial, signer, ...result, signatures, verified, phases });
        writeReport(info, threads, rows, started, false);
        fs.rmSync(output, { force: true });
      }
    }
    fs.rmSync(input, { force: true });
  }
  writeReport(info, threads, rows, started, true);
  log('written bench/RESULTS-dnssec-sign.md');
}

if (process.argv[2] === '--worker') {
  worker(process.argv.slice(3)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
