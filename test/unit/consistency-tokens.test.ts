import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConsistencyToken } from '../../console/src/consistency-token';
import { ConsistencyTokens, TOKEN_KEPT_MS } from '../../src/cli/consistency';

/**
 * The clients send back the latest Consistency-Token they were given (docs/deployment.md, «Reading from
 * standbys»): the CLI within a command and from one command to the next (its state file), the console for
 * as long as it is open. Positions are ordered as the WAL's, not as text.
 */
describe("the CLI's Consistency-Tokens", () => {
  const SERVICE = 'http://zonekeeper.test:3000';
  let file: string;
  let now: number;
  const tokens = () => new ConsistencyTokens(SERVICE, file, () => now);

  beforeEach(() => {
    file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-tokens-')), 'state', 'consistency-tokens.json');
    now = 1_000_000;
  });

  it('sends nothing before a write, then the latest write token: within a command and in the next one', () => {
    const first = tokens();
    expect(first.current()).toBeUndefined();
    first.note('0/9');
    first.note('0/10');
    // an answer arriving late does not take the token back
    first.note('0/A');
    expect(first.current()).toBe('0/10');
    // a read's answer carries none
    first.note(null);
    expect(first.current()).toBe('0/10');
    now += 1000;
    expect(tokens().current()).toBe('0/10');
  });

  it('keeps a token per service', () => {
    tokens().note('1/0');
    expect(new ConsistencyTokens('http://other.test:3000', file, () => now).current()).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))[SERVICE].token).toBe('1/0');
  });

  it(`stops sending a token older than ${TOKEN_KEPT_MS / 60_000} minutes, and takes what the service says last over the file's`, () => {
    tokens().note('5/0');
    now += TOKEN_KEPT_MS + 1;
    expect(tokens().current()).toBeUndefined();
    now = 1_000_000;
    // a database restored from a backup: its positions are lower; the next command's first answer is the truth
    const next = tokens();
    expect(next.current()).toBe('5/0');
    next.note('0/100');
    expect(next.current()).toBe('0/100');
    expect(tokens().current()).toBe('0/100');
  });

  it('goes on without the file when it is broken or cannot be written', () => {
    const broken = tokens();
    writeFileSync(path.join(path.dirname(path.dirname(file)), 'not-a-dir'), '');
    const unwritable = new ConsistencyTokens(SERVICE, path.join(path.dirname(path.dirname(file)), 'not-a-dir', 'x.json'), () => now);
    unwritable.note('0/1');
    expect(unwritable.current()).toBe('0/1');
    broken.note('0/2');
    writeFileSync(file, '{not json');
    expect(tokens().current()).toBeUndefined();
  });
});

describe("the console's Consistency-Token", () => {
  it('sends no header before a write, then the latest position it was given, whatever the order of the answers', () => {
    const token = new ConsistencyToken();
    expect(token.headers()).toEqual({});
    token.note('16/B374D848');
    token.note('16/B374D84');
    token.note(undefined);
    token.note('not a position');
    expect(token.headers()).toEqual({ 'Consistency-Token': '16/B374D848' });
    token.note('17/0');
    expect(token.headers()).toEqual({ 'Consistency-Token': '17/0' });
  });
});
