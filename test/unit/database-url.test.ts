import { DatabaseUrlError, parseDatabaseUrl } from '../../src/db/database-hosts';

/** DATABASE_URL's host lists, in libpq's two forms: each host gets a one-host URL that pg and MikroORM parse */
describe('DATABASE_URL host lists', () => {
  test('a URL with several hosts: each its own one-host URL with the other parameters, read-write by default', () => {
    const parsed = parseDatabaseUrl('postgresql://us%40r:p%2Fw@a:5432,[::1]:5433/zk?sslmode=disable');
    expect(parsed.sessionAttrs).toBe('read-write');
    expect(parsed.targets.map(({ host, port }) => `${host} ${port}`)).toEqual(['a 5432', '::1 5433']);
    const second = new URL(parsed.targets[1].url);
    expect([
      second.hostname,
      second.port,
      second.pathname,
      decodeURIComponent(second.username),
      decodeURIComponent(second.password),
    ]).toEqual(['[::1]', '5433', '/zk', 'us@r', 'p/w']);
    expect(second.searchParams.get('sslmode')).toBe('disable');
  });

  test("libpq's keyword/value pairs: host and port lists, quoted values, target_session_attrs taken out of the URL", () => {
    const parsed = parseDatabaseUrl(
      "host=a,b port=5432,5433 dbname=zk user=postgres password='x y\\'z' target_session_attrs=primary application_name=zk",
    );
    expect(parsed.sessionAttrs).toBe('primary');
    expect(parsed.targets.map(({ host, port }) => `${host} ${port}`)).toEqual(['a 5432', 'b 5433']);
    const first = new URL(parsed.targets[0].url);
    expect([first.hostname, first.port, first.pathname, decodeURIComponent(first.password)]).toEqual(['a', '5432', '/zk', "x y'z"]);
    expect(first.searchParams.get('application_name')).toBe('zk');
    expect(first.searchParams.has('target_session_attrs')).toBe(false);
  });

  test('one host stays as it was: any session, no search', () => {
    const parsed = parseDatabaseUrl('postgresql://postgres:pw@127.0.0.1:5432/zk');
    expect(parsed.sessionAttrs).toBe('any');
    expect(parsed.targets).toHaveLength(1);
    expect(new URL(parsed.targets[0].url).port).toBe('5432');
  });

  test.each([
    ['postgresql://h/zk?target_session_attrs=standby', /target_session_attrs/],
    ['host=a,b,c port=1,2', /3 hosts but 2 ports/],
    ['host=a port=99999', /not a port/],
    ["host='a", /unterminated/],
    ['mysql://h/zk', /postgres/],
  ])('%s is refused with the reason', (url, reason) => {
    expect(() => parseDatabaseUrl(url)).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl(url)).toThrow(reason);
  });
});
