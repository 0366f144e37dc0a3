// Experiment behind bench/FINDINGS.md («The edges' layers around the write»), started by edge-cpu.js:
// node edge-server.js <tree> <port>: the tree's HTTP edge (request log, metrics, /api/v1 and /api routers, the
// app's layer order of that tree) with the services stubbed where the write would start: what is left is the edge.
const path = require('node:path');
const tree = process.argv[2];
const port = Number(process.argv[3]);
process.env.LOG_LEVEL = 'info';
require(path.join(tree, 'node_modules/reflect-metadata'));
const d = (p) => require(path.join(tree, 'dist/src', p));
const express = require(path.join(tree, 'node_modules/express'));
const fs = require('node:fs');
const { createHttpServer } = d('http/server');
const { requestLog } = d('http/request-log');
const { HeavyRequests } = d('http/heavy-requests');
const { createRestRouter } = d('rest/router');
const { createPowerDnsRouter } = d('powerdns/router');
const { loadSettings } = d('config/settings');
const { httpRequestDuration } = d('metrics');
const settings = loadSettings({ ...process.env, DATABASE_URL: 'postgresql://x@127.0.0.1/x', RATE_LIMIT_ENABLED: 'false' }, tree);
const principal = { kind: 'admin', keyId: 1, keyName: 'bench', policy: null };
let id = 1;
const services = {
  settings,
  apiKeys: { authenticate: async (_db, key) => (key === 'k' ? principal : null) },
  sessions: { authenticate: async () => null },
  rateLimits: { take: async () => undefined, enter: (_p, go) => (go(), () => undefined) },
  audit: { refusals: { note() {} } },
  records: {
    create: async (_ctx, input) => ({
      id: String(id++),
      owner: input.owner,
      rdata: input.rdata,
      zone: input.zone,
      type: input.type,
      ttl: input.ttl,
    }),
  },
  zoneChanges: { apply: async () => ({ serial: 1 }) },
};
const heavy = new HeavyRequests(settings.heavyRequestsAtOnce);
const app = express();
app.disable('x-powered-by');
app.set('query parser', 'simple');
app.set('etag', false);
const appText = fs.readFileSync(path.join(tree, 'dist/src/app.js'), 'utf8');
const before = appText.includes('httpRequestDuration.startTimer');
const probes = () => {
  app.get('/health', (_q, r) => r.json({ status: 'ok' }));
  app.get('/ready', (_q, r) => r.json({ status: 'ready' }));
  app.get('/metrics', (_q, r) => r.send('x'));
};
app.use(requestLog);
if (before) {
  app.use((req, res, next) => {
    const end = httpRequestDuration.startTimer({ method: req.method });
    res.on('finish', () => end({ route: req.route?.path ?? req.baseUrl ?? 'unmatched', status: String(res.statusCode) }));
    next();
  });
  probes();
}
const pdns = createPowerDnsRouter({ db: {}, services, heavy });
app.use('/api/v1', pdns.api);
app.get('/api', ...pdns.discovery);
app.use('/api', createRestRouter({ runOperation: async () => ({}), db: {}, services, heavy, largeBodies: new HeavyRequests(1) }));
if (!before) probes();
app.use((_q, r) => r.status(404).json({}));
createHttpServer(app).listen(port, '127.0.0.1', () => process.stdout.write(`ready ${before ? 'base layering' : 'new layering'}\n`));
process.on('SIGINT', () => process.exit(0));
