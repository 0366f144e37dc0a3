import {
  CheckState,
  CheckStatus,
  isolationReason,
  memberCondition,
  nextCheckState,
  nextCheckStateByVotes,
  panicking,
  servedValues,
  SteeringDefinition,
  SteeringMember,
} from '../../src/services/steering/decision';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const fresh = (): CheckState => ({
  status: 'unknown',
  since: T0,
  passes: 0,
  failures: 0,
  stableSince: null,
  transitions: [],
  pinned: false,
});
const thresholds = { fall: 3, rise: 3, holdSeconds: 30 };

/** runs probes (true: passed) one per `every` seconds from `start`, answering the status after each */
function run(results: boolean[], options: { start?: CheckState; every?: number; from?: number; frozen?: boolean } = {}) {
  let state = options.start ?? fresh();
  const statuses: string[] = [];
  results.forEach((passed, i) => {
    state = nextCheckState(state, passed, at((options.from ?? 0) + i * (options.every ?? 2)), thresholds, options.frozen);
    statuses.push(state.status + (state.pinned ? '*' : ''));
  });
  return { state, statuses };
}

const P = true;
const F = false;

describe('steering: one probe after another (fall, rise, flap damping)', () => {
  it.each([
    ['fall failures take an unknown check down at once (no hold for its first decision)', [F, F, F], 'unknown unknown down'],
    ['rise passes bring it up', [P, P, P], 'unknown unknown up'],
    ['a broken run of failures does not count', [F, F, P, F, F], 'unknown unknown unknown unknown unknown'],
  ])('%s', (_name, results, expected) => {
    expect(run(results).statuses.join(' ')).toBe(expected);
  });

  it('holds a check that changed state for 30 s: down at 4 s, passing from 6 s, up only once 30 s have passed', () => {
    const up: CheckState = { ...fresh(), status: 'up', since: at(-600) };
    const results = [F, F, F, P, P, P, P, P, P, P, P, P, P, P, P, P, P];
    const { state, statuses } = run(results, { start: up });
    // probes at 0, 2, 4 (down), 6 ... 32: rise is met at 10 s, the hold ends at 34 s
    expect(statuses.slice(0, 3)).toEqual(['up', 'up', 'down']);
    expect(statuses.slice(3).every((s) => s === 'down')).toBe(true);
    const later = nextCheckState(state, P, at(34), thresholds);
    expect(later).toMatchObject({ status: 'up', since: at(34) });
  });

  it('holds for the hold the operator set (STEERING_HOLD): 5 s, so up at 10 s once rise is met', () => {
    let state: CheckState = { ...fresh(), status: 'up', since: at(-600) };
    const short = { ...thresholds, holdSeconds: 5 };
    // down at 4 s (fall 3 at 0, 2, 4); passing at 6, 8: held (and rise unmet); at 10 s rise is met and 6 s have passed
    for (const [t, passed] of [
      [0, F],
      [2, F],
      [4, F],
      [6, P],
      [8, P],
    ] as const)
      state = nextCheckState(state, passed, at(t), short);
    expect(state).toMatchObject({ status: 'down', since: at(4) });
    expect(nextCheckState(state, P, at(10), short)).toMatchObject({ status: 'up', since: at(10) });
    expect(nextCheckState(state, P, at(10), thresholds)).toMatchObject({ status: 'down' });
  });

  it('the first decision of a new check is not held: found down at once, it comes up with rise', () => {
    expect(run([F, F, F, P, P, P]).statuses).toEqual(['unknown', 'unknown', 'down', 'down', 'down', 'up']);
  });

  it('pins a flapping check down: the 4th change within 5 minutes is refused and the check stays down until stable 5 minutes', () => {
    // down, up, down, up, down, each change 40 s apart (past the hold): the 4th change (back up) pins it
    let state = fresh();
    const changes: string[] = [];
    let t = 0;
    for (const passed of [F, P, F, P, F, P]) {
      for (let i = 0; i < 3; i++) state = nextCheckState(state, passed, at((t += 1)), thresholds);
      changes.push(state.status + (state.pinned ? '*' : ''));
      t += 40;
    }
    // the first decision (unknown → down) is no flap; then up, down, up are the three allowed; the next change pins
    expect(changes).toEqual(['down', 'up', 'down', 'up', 'down*', 'down*']);
    // passing since the last run began, but for less than 5 minutes: still pinned
    const stableFrom = (state.stableSince as Date).getTime();
    state = nextCheckState(state, P, new Date(stableFrom + 299_000), thresholds);
    expect(state).toMatchObject({ status: 'down', pinned: true });
    state = nextCheckState(state, P, new Date(stableFrom + 300_000), thresholds);
    expect(state).toMatchObject({ status: 'up', pinned: false });
  });

  it('a failure while pinned starts the 5 stable minutes again', () => {
    const pinned: CheckState = { ...fresh(), status: 'down', since: at(0), pinned: true, stableSince: at(0), passes: 10 };
    let state = nextCheckState(pinned, F, at(200), thresholds);
    state = nextCheckState(state, P, at(210), thresholds);
    state = nextCheckState(state, P, at(400), thresholds);
    state = nextCheckState(state, P, at(500), thresholds);
    expect(state.status).toBe('down');
    state = nextCheckState(state, P, at(510), thresholds);
    expect(state.status).toBe('up');
  });

  it('in a panic freeze nothing goes down, but what comes up comes up', () => {
    const up: CheckState = { ...fresh(), status: 'up', since: at(-100) };
    expect(run([F, F, F, F], { start: up, frozen: true }).state.status).toBe('up');
    const down: CheckState = { ...fresh(), status: 'down', since: at(-100) };
    expect(run([P, P, P], { start: down, frozen: true }).state.status).toBe('up');
  });
});

describe('steering: the panic freeze of one vantage', () => {
  const rule = { enabled: true, minChecks: 10 };
  it.each([
    [0, 0, 0, false],
    // a small install is never frozen: its endpoints dying is what it is there to see
    [2, 3, 1, false],
    [3, 3, 3, false],
    [9, 10, 5, false],
    // not more than half
    [10, 20, 5, false],
    // one site's (one network's) endpoints dying is an outage of that site, not of the prober
    [20, 20, 2, false],
    [11, 20, 3, true],
    [20, 20, 20, true],
  ])('%i failing of %i checks across %i networks: panicking %s', (failing, total, failingNetworks, expected) => {
    expect(panicking({ failing, total, failingNetworks }, rule)).toBe(expected);
  });

  it('STEERING_PANIC=off never freezes; STEERING_PANIC_MIN_CHECKS sets how many must fail', () => {
    expect(panicking({ failing: 20, total: 20, failingNetworks: 20 }, { enabled: false, minChecks: 10 })).toBe(false);
    expect(panicking({ failing: 3, total: 3, failingNetworks: 3 }, { enabled: true, minChecks: 3 })).toBe(true);
  });
});

describe('steering: the sound vantages vote, the quorum decides', () => {
  const thresholds = { fall: 2, rise: 2, holdSeconds: 30, quorum: 'majority' as const };
  const up: CheckState = { ...fresh(), status: 'up', since: at(-100) };
  const vote = (vantage: string, lastOk: boolean, run: number) => ({
    vantage,
    lastOk,
    passes: lastOk ? run : 0,
    failures: lastOk ? 0 : run,
  });

  it('one vantage alone decides as its probes do (fall failures in a row)', () => {
    expect(nextCheckStateByVotes(up, [vote('a', false, 1)], 0, at(0), thresholds).state.status).toBe('up');
    expect(nextCheckStateByVotes(up, [vote('a', false, 2)], 0, at(0), thresholds).state.status).toBe('down');
  });

  it('of two vantages, one seeing a check fail takes nothing down; both do', () => {
    expect(nextCheckStateByVotes(up, [vote('a', false, 5), vote('b', true, 5)], 0, at(0), thresholds).state.status).toBe('up');
    expect(nextCheckStateByVotes(up, [vote('a', false, 2), vote('b', false, 2)], 0, at(0), thresholds).state.status).toBe('down');
  });

  it('two of three is more than half; a percentage quorum is reached at its share', () => {
    const votes = [vote('a', false, 2), vote('b', false, 2), vote('c', true, 9)];
    expect(nextCheckStateByVotes(up, votes, 0, at(0), thresholds).state.status).toBe('down');
    expect(nextCheckStateByVotes(up, votes, 0, at(0), { ...thresholds, quorum: 100 }).state.status).toBe('up');
    expect(nextCheckStateByVotes(up, votes.slice(0, 1).concat(votes.slice(2)), 0, at(0), { ...thresholds, quorum: 50 }).state.status).toBe(
      'down',
    );
  });

  it('with no sound vote the state is held where it was, and says why', () => {
    expect(nextCheckStateByVotes(up, [], 2, at(0), thresholds)).toEqual({ state: up, held: 'no-sound-vantage' });
    expect(nextCheckStateByVotes(up, [], 0, at(0), thresholds)).toEqual({ state: up, held: null });
  });

  it('frozen: a check its votes take down is held up, and says so; one coming up comes up', () => {
    const frozen = nextCheckStateByVotes(up, [vote('a', false, 3)], 0, at(0), thresholds, true);
    expect(frozen.state.status).toBe('up');
    expect(frozen.held).toBe('panic');
    const down: CheckState = { ...fresh(), status: 'down', since: at(-100) };
    expect(nextCheckStateByVotes(down, [vote('a', true, 2)], 0, at(0), thresholds, true)).toMatchObject({
      state: { status: 'up' },
      held: null,
    });
  });

  it('a vantage is isolated when it fails most of what the others pass, or when every canary fails; it counts again once it agrees on all', () => {
    expect(isolationReason({ compared: 3, contradicted: 2 }, null, false)).toMatch(/2 of 3 checks fail that the other vantages see pass/);
    expect(isolationReason({ compared: 4, contradicted: 2 }, null, false)).toBeNull();
    expect(isolationReason({ compared: 0, contradicted: 0 }, { failed: 2, tried: 2 }, false)).toMatch(/canaries fail \(2 of 2/);
    expect(isolationReason({ compared: 0, contradicted: 0 }, { failed: 1, tried: 2 }, false)).toBeNull();
    // isolated: two endpoints really died, so it agrees on those; it still fails the third the others pass
    expect(isolationReason({ compared: 3, contradicted: 1 }, null, true)).toMatch(/1 of 3/);
    expect(isolationReason({ compared: 3, contradicted: 0 }, null, true)).toBeNull();
  });

  it('a member held is never shown up: frozen, no sound vantage; admin first', () => {
    expect(memberCondition({ admin: 'obey' }, { status: 'up', pinned: false, held: 'panic' })).toBe('frozen');
    expect(memberCondition({ admin: 'obey' }, { status: 'up', pinned: false, held: 'no-sound-vantage' })).toBe('no-sound-vantage');
    expect(memberCondition({ admin: 'obey' }, { status: 'down', pinned: true, held: null })).toBe('flapping');
    expect(memberCondition({ admin: 'down' }, { status: 'up', pinned: false, held: 'panic' })).toBe('paused');
    expect(memberCondition({ admin: 'obey' }, null)).toBe('up');
  });
});

describe('steering: what a steered RRset serves', () => {
  const member = (value: string, checkId: number | null, admin: SteeringMember['admin'] = 'obey'): SteeringMember => ({
    value,
    checkId,
    admin,
    weight: 1,
  });
  const definition = (overrides: Partial<SteeringDefinition> = {}): SteeringDefinition => ({
    pools: [
      { minHealthy: 2, members: [member('192.0.2.1', 1), member('192.0.2.2', 2), member('192.0.2.3', 3)] },
      { minHealthy: 1, members: [member('198.51.100.1', 4), member('198.51.100.2', 5)] },
    ],
    maxAnswers: 8,
    backup: ['203.0.113.9'],
    allDown: 'backup',
    ...overrides,
  });
  const statuses =
    (down: number[], unknown: number[] = []) =>
    (id: number): CheckStatus =>
      down.includes(id) ? 'down' : unknown.includes(id) ? 'unknown' : 'up';

  it.each([
    ['every member healthy: the first pool', definition(), [], { values: ['192.0.2.1', '192.0.2.2', '192.0.2.3'], source: 0 }],
    ['one down: the others of the first pool', definition(), [2], { values: ['192.0.2.1', '192.0.2.3'], source: 0 }],
    ['fewer healthy than min healthy: the next pool', definition(), [1, 2], { values: ['198.51.100.1', '198.51.100.2'], source: 1 }],
    ['every pool down: the backup values', definition(), [1, 2, 3, 4, 5], { values: ['203.0.113.9'], source: 'backup' }],
    ['every pool down, all-down empty: nothing', definition({ allDown: 'empty' }), [1, 2, 3, 4, 5], { values: [], source: 'empty' }],
    ['every pool down, no backup values: nothing', definition({ backup: [] }), [1, 2, 3, 4, 5], { values: [], source: 'empty' }],
    ['max answers cuts the pool', definition({ maxAnswers: 2 }), [], { values: ['192.0.2.1', '192.0.2.2'], source: 0 }],
  ])('%s', (_name, def, down, expected) => {
    expect(servedValues(def, 'A', statuses(down))).toEqual(expected);
  });

  it('an unknown check serves (the first answer is not the fallback), admin status overrides the check', () => {
    expect(servedValues(definition(), 'A', statuses([], [1, 2, 3])).source).toBe(0);
    const paused = definition({
      pools: [{ minHealthy: 1, members: [member('192.0.2.1', 1, 'down'), member('192.0.2.2', 2, 'up'), member('192.0.2.3', null)] }],
    });
    expect(servedValues(paused, 'A', statuses([2])).values).toEqual(['192.0.2.2', '192.0.2.3']);
  });

  it('a CNAME serves one target', () => {
    const cname = definition({
      pools: [{ minHealthy: 1, members: [member('a.example.', 1), member('b.example.', 2)] }],
      backup: ['c.example.'],
    });
    expect(servedValues(cname, 'CNAME', statuses([])).values).toEqual(['a.example.']);
    expect(servedValues(cname, 'CNAME', statuses([1])).values).toEqual(['b.example.']);
    expect(servedValues(cname, 'CNAME', statuses([1, 2])).values).toEqual(['c.example.']);
  });
});
