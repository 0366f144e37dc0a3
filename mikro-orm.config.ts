import { makeOrmConfig } from './src/db/orm-config';

/** For the MikroORM CLI (run after `npm run build`, e.g. through `npm run migration:create`). */
export default makeOrmConfig({
  clientUrl: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/zonekeeper',
  keepSnapshot: true,
});
