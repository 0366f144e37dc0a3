'use strict';
// The data of the experiments on the nested GraphQL answer (bench/experiments): 100 users × 10 zones × 10 records.

/**
 * 100 users with 10 zones each, created through the REST API (each zone gets its 4 default records: SOA, 2 NS,
 * www), and 6 A records per zone by SQL: 10 records per zone, 10,000 in all, as in the bench.
 */
async function seedNestedGraph(svc, db) {
  const ids = [];
  for (let u = 0; u < 100; u++) {
    const user = await svc.api('POST', '/user/add', { email: `u${u}@experiment.example` });
    for (let z = 0; z < 10; z++) ids.push((await svc.api('POST', '/domain/add', { user_id: user.id, zone: `z${z}.u${u}.experiment.example` })).id);
  }
  await db.query(`insert into records (domain_id, owner, type, rdata, ttl) select d.id, 'r' || g, 'A', '192.0.2.' || (g + 1), 3600 from unnest($1::bigint[]) d(id), generate_series(0, 5) g`, [ids]);
}

module.exports = { seedNestedGraph };
