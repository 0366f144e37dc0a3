/**
 * The README's curl examples run as written: each `sh` block of curl commands against the service (real curl,
 * real HTTP), on a fresh service of its own, as a new user would type them after `npm start`. What the test
 * changes, as the README says: `KEY` is set to the service's admin key (a `KEY=...` line is dropped), and
 * `localhost:3000` is the service's address. A `curl` shell function around the real one records each
 * command's status and body (to files, so that a command's own `> file` still works): every command succeeds,
 * with the status its comment names; the SPF, DKIM and DMARC values are stored whole.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TXT } from '../../src/dns/record-types/txt';
import { ADMIN_KEY, startTestApp } from '../support/test-app';

const README = readFileSync(path.resolve(__dirname, '..', '..', 'README.md'), 'utf8');

/** the README's `sh` blocks made only of curl commands (and the shell variables they use) */
const curlBlocks = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .map((m) => m[1])
  .filter((block) => /^curl /m.test(block) && !/^(npm|nsupdate|certbot|lego|zonekeeper) /m.test(block));

/** each curl command of a block: from a line that starts with `curl` to the next one (a command may span lines) */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('curl ')) commands.push(line);
    else if (commands.length && !line.startsWith('#') && !/^[A-Z]+=/.test(line)) commands[commands.length - 1] += `\n${line}`;
  }
  return commands;
}

/** the status a command's trailing comment names (`# 201 {id, …}`), else any success */
const expectedStatus = (command: string) => /#\s*(\d{3})\b/.exec(command)?.[1];

/** the text a TXT RDATA holds, its strings joined as SPF, DKIM and DMARC read them */
function joinedText(rdata: string): string {
  const parsed = TXT.parse(rdata, 'example.com');
  if (!parsed.ok) throw new Error(`not TXT RDATA: ${rdata}`);
  return Buffer.concat(parsed.value.strings).toString('utf8');
}

const RECORDER = `
__zk_n=0
curl() {
  __zk_n=$((__zk_n + 1))
  command curl --output "$ZK_LOG/$__zk_n.body" --write-out '%{http_code}' "$@" > "$ZK_LOG/$__zk_n.status" || return
  cat "$ZK_LOG/$__zk_n.body"
}
`;

/** which interface a block shows: the PowerDNS API (/api/v1), REST (/api) or GraphQL */
const kindOf = (block: string) =>
  block.includes('localhost:3000/api/v1') ? 'PowerDNS API' : block.includes('localhost:3000/api') ? 'REST' : 'GraphQL';

test('the README has its curl blocks (REST, GraphQL and the PowerDNS API)', () => {
  expect(curlBlocks.map(kindOf).sort()).toEqual(['GraphQL', 'PowerDNS API', 'REST']);
});

test.each(curlBlocks.map((block) => [kindOf(block), block]))(
  "the README's %s curl block runs as written on a fresh service",
  async (_kind, block) => {
    const app = await startTestApp();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-readme-'));
    try {
      const script = block.replace(/^KEY=.*$/m, '').replaceAll('localhost:3000', app.baseUrl.replace(/^http:\/\//, ''));
      await new Promise<void>((resolve, reject) => {
        execFile(
          'bash',
          ['-c', `${RECORDER}\n${script}`],
          { cwd: dir, env: { PATH: process.env.PATH, KEY: ADMIN_KEY, ZK_LOG: dir } },
          (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
        );
      });
      const commands = commandsOf(block);
      const results = commands.map((command, i) => ({
        command,
        status: readFileSync(path.join(dir, `${i + 1}.status`), 'utf8'),
        body: readFileSync(path.join(dir, `${i + 1}.body`), 'utf8'),
      }));
      for (const { command, status, body } of results) {
        const expected = expectedStatus(command);
        expect({ command, status }).toEqual({ command, status: expected ?? expect.stringMatching(/^2\d\d$/) });
        // GraphQL answers its errors with 200
        if (command.includes('/graphql')) expect({ command, errors: JSON.parse(body).errors }).toEqual({ command, errors: undefined });
      }
      // SPF, DKIM and DMARC values with `;`, `@`-free and long text: stored whole (the DKIM key as two strings)
      const txtAdds = results.filter((r) => /rtype=TXT/.test(r.command));
      if (kindOf(block) === 'REST') expect(txtAdds.map((r) => JSON.parse(r.body).owner)).toEqual(['@', 'mail._domainkey', '_dmarc']);
      for (const { command, body } of txtAdds) {
        const typed = /--data-urlencode "rdata=([^"]*)"/.exec(command)![1];
        expect(joinedText(JSON.parse(body).rdata)).toBe(typed);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await app.close();
    }
  },
  60_000,
);
