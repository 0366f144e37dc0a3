const path = require('node:path');
const net = require('node:net');
const dnsPacket = require('/work/main/node_modules/dns-packet');
const { Client } = require('/work/main/node_modules/pg');
const { withDatabase } = require('/work/main/bench/lib/database');
const { startService } = require('/work/main/bench/lib/service');
const root = process.argv[2];
const N = Number(process.argv[3] || 300000);
function transfer(port, zone) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const query = dnsPacket.encode({ id: 1, type: 'query', flags: 0, questions: [{ type: 'AXFR', name: zone, class: 'IN' }] });
    const frame = Buffer.alloc(2); frame.writeUInt16BE(query.length);
    let buffered = Buffer.alloc(0); let soas = 0; let messages = 0;
    const start = process.hrtime.bigint();
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const msg = dnsPacket.decode(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length); messages++;
        for (const a of msg.answers) if (a.type === 'SOA') soas++;
        if (soas >= 2) { socket.destroy(); return resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, messages }); }
      }
    });
    socket.on('error', reject);
    socket.write(Buffer.concat([frame, query]));
  });
}
withDatabase('zk_axfr_exp', async (url) => {
  const svc = await startService({ databaseUrl: url, apiKey: 'zk_exp_key_0123456789abcdef', logFile: '/tmp/axfr-exp.log', main: path.join(root, 'dist/src/main.js'), env: { LOG_LEVEL: 'warn' } });
  try {
    const user = await svc.api('POST', '/user/add', { email: 'x@y.test' });
    await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'big.test' });
    const db = new Client({ connectionString: url }); await db.connect();
    const id = (await db.query("select id from domains where name='big.test'")).rows[0].id;
    await db.query(`insert into records (domain_id, owner, type, rdata, ttl) select $1, 'r' || n, 'A', '10.0.0.1', 3600 from generate_series(1, $2::int) n`, [id, N]);
    await db.query('vacuum analyze records'); await db.end();
    for (let i = 0; i < 2; i++) console.log(root, JSON.stringify(await transfer(svc.dnsPort, 'big.test')));
  } finally { await svc.stop(); }
}).catch((e) => { console.error(e); process.exit(1); });
