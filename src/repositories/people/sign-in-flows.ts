/** Sign-in flows (OpenID Connect): what a sign-in keeps between its redirect and its callback, taken once */
import type { Sql } from '../../db/pool';

export interface SignInFlow {
  codeVerifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

export async function insertSignInFlow(sql: Sql, idHash: string, flow: SignInFlow): Promise<void> {
  // flows older than an hour are dropped as new ones begin: an abandoned sign-in leaves nothing for long
  await sql.rows(`delete from sign_in_flows where created_at < now() - interval '1 hour'`);
  await sql.rows(`insert into sign_in_flows (id_hash, code_verifier, state, nonce, redirect_uri) values ($1, $2, $3, $4, $5)`, [
    idHash,
    flow.codeVerifier,
    flow.state,
    flow.nonce,
    flow.redirectUri,
  ]);
}

/** takes the flow once (deleted as it is read), if it began less than `maxSeconds` ago */
export async function takeSignInFlow(sql: Sql, idHash: string, maxSeconds: number): Promise<SignInFlow | undefined> {
  const [row] = await sql.rows(
    `delete from sign_in_flows where id_hash = $1 returning code_verifier, state, nonce, redirect_uri, created_at > now() - make_interval(secs => $2) as fresh`,
    [idHash, maxSeconds],
  );
  if (!row?.fresh) return undefined;
  return { codeVerifier: row.code_verifier, state: row.state, nonce: row.nonce, redirectUri: row.redirect_uri };
}
