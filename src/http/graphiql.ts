import path from 'node:path';
import { NextFunction, Request, Response, Router } from 'express';

/**
 * GraphiQL for a person at a browser, served whole by the service: the page, GraphiQL's UMD build and React's,
 * from the npm packages installed with it (no CDN: an operator's machine often has no internet). The page
 * asks for the API key in a field of its own and sends it as X-API-Key with every operation (introspection
 * included, so the docs appear once a key is given); the key stays in the browser's session storage.
 */
/** a file of an installed package (its package.json is the one path every package exports) */
const packageFile = (name: string, file: string) => path.join(path.dirname(require.resolve(`${name}/package.json`)), file);

const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'text/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

const ASSET_PATH = '/graphiql';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Zonekeeper GraphiQL</title>
  <link rel="stylesheet" href="${ASSET_PATH}/graphiql.css">
  <style>
    html, body { height: 100%; margin: 0; font-family: system-ui, sans-serif; }
    body { display: flex; flex-direction: column; }
    #key-bar { display: flex; gap: 0.5em; align-items: center; padding: 0.4em 0.8em; border-bottom: 1px solid #ddd; }
    #key-bar input { flex: 1; max-width: 40em; font-family: monospace; }
    #graphiql { flex: 1; min-height: 0; }
  </style>
</head>
<body>
  <div id="key-bar">
    <label for="api-key">X-API-Key</label>
    <input id="api-key" type="password" autocomplete="off" placeholder="an admin or user API key">
    <button id="use-key" type="button">Use key</button>
  </div>
  <div id="graphiql">Loading…</div>
  <script src="${ASSET_PATH}/react.js"></script>
  <script src="${ASSET_PATH}/react-dom.js"></script>
  <script src="${ASSET_PATH}/graphiql.js"></script>
  <script>
    const input = document.getElementById('api-key');
    input.value = sessionStorage.getItem('zonekeeper-api-key') || '';
    const root = ReactDOM.createRoot(document.getElementById('graphiql'));
    const initialQuery = new URLSearchParams(location.search).get('query') || undefined;
    let generation = 0;
    function render() {
      const key = input.value.trim();
      sessionStorage.setItem('zonekeeper-api-key', key);
      // a new fetcher for a new key: GraphiQL then introspects again, with the key
      const fetcher = GraphiQL.createFetcher({ url: '/graphql', headers: { 'X-API-Key': key } });
      root.render(React.createElement(GraphiQL, { key: ++generation, fetcher, defaultQuery: initialQuery, isHeadersEditorEnabled: true }));
    }
    document.getElementById('use-key').addEventListener('click', render);
    input.addEventListener('keydown', (event) => { if (event.key === 'Enter') render(); });
    render();
  </script>
</body>
</html>
`;

/**
 * The page at `GET /graphql` when a browser asks for HTML (operations sent as GET ask for JSON, and go on to
 * Apollo), and its assets under /graphiql/. Neither needs a key: they hold no data.
 */
export function graphiql(): Router {
  const router = Router();
  router.get('/graphql', (req: Request, res: Response, next: NextFunction) => {
    if (req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) !== 'text/html') return next();
    res.type('html').set('Cache-Control', 'no-cache').send(PAGE);
  });
  router.get(`${ASSET_PATH}/:asset`, (req: Request, res: Response, next: NextFunction) => {
    const asset = ASSETS[req.params.asset as string];
    if (!asset) return next();
    res.type(asset.type).set('Cache-Control', 'public, max-age=3600').sendFile(asset.file);
  });
  return router;
}
