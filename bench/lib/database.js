'use strict';
// A database of the benchmark's own on BENCH_ADMIN_URL's server, dropped when the work ends (kept with
// BENCH_KEEP_DATABASE=1, for a look at its statements afterwards: its name is printed).
const { Client } = require('pg');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Creates `<prefix>_<time>`, runs `work(url)` on it and drops it afterwards, whatever happened. */
async function withDatabase(prefix, work) {
  const name = `${prefix}_${Date.now()}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    if (process.env.BENCH_KEEP_DATABASE === '1') process.stdout.write(`[bench] database kept: ${url}\n`);
    else await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

module.exports = { withDatabase, ADMIN_URL };
