import { Client } from 'pg';
test('the test PostgreSQL answers', async () => {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
  await client.connect();
  const { rows } = await client.query('select 1 + 1 as two');
  await client.end();
  expect(rows[0].two).toBe(2);
});
