import { FormEvent, useEffect, useMemo, useState } from 'react';
import { useClient, useMutation } from 'urql';
import { sentForReview } from './review';
import { describeError, errorDetails } from './errors';
import { ExportZoneDocument, ImportZoneDocument, ImportZoneMutation, ZoneImportMode, ZoneImportTtlPolicy } from './generated/graphql';

type ImportResult = ImportZoneMutation['importZone'];

/**
 * Export (`exportZone`: the RFC 1035 master file) and import (`importZone`): a dry run first shows the records
 * the file would add and remove, then the same file is applied. Problems come with their line numbers.
 */
export function ZoneFile({ zone, canImport, onImported }: { zone: string; canImport: boolean; onImported: () => void }) {
  const client = useClient();
  const [exported, setExported] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [mode, setMode] = useState<ZoneImportMode>('MERGE');
  const [ttlPolicy, setTtlPolicy] = useState<ZoneImportTtlPolicy>('REFUSE');
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [done, setDone] = useState<ImportResult | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [, importZone] = useMutation(ImportZoneDocument);
  // the download link's file, made once per export and released when replaced
  const download = useMemo(() => (exported === null ? null : URL.createObjectURL(new Blob([exported], { type: 'text/dns' }))), [exported]);
  useEffect(() => () => (download ? URL.revokeObjectURL(download) : undefined), [download]);

  const showExport = async () => {
    const result = await client.query(ExportZoneDocument, { zone }, { requestPolicy: 'network-only' }).toPromise();
    if (result.error) setExportError(describeError(result.error));
    else {
      setExportError(null);
      setExported(result.data!.exportZone);
    }
  };

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setProblems([]);
    const result = await importZone({ zone, text, mode, ttlPolicy, dryRun });
    setBusy(false);
    if (result.error) {
      const details = errorDetails(result.error).map((d) => d.message);
      setProblems(details.length ? details : [describeError(result.error)]);
      setPreview(null);
      return;
    }
    if (dryRun) setPreview(result.data!.importZone);
    else {
      setDone(result.data!.importZone);
      setPreview(null);
      onImported();
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    void run(true);
  };

  return (
    <>
      <section aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <div className="actions">
          <button type="button" onClick={showExport}>
            Show the zone file
          </button>
          {download && (
            <a className="button-link" href={download} download={`${zone}.zone`}>
              Download {zone}.zone
            </a>
          )}
        </div>
        {exportError && (
          <p role="alert" className="error-box">
            {exportError}
          </p>
        )}
        {exported !== null && (
          <pre className="zone-file" tabIndex={0} aria-label={`Zone file of ${zone}`}>
            {exported}
          </pre>
        )}
      </section>
      {canImport && (
        <section aria-labelledby="import-title">
          <h2 id="import-title">Import</h2>
          <form onSubmit={submit} noValidate>
            <div className="field">
              <label htmlFor="import-text">Zone file (RFC 1035 master file)</label>
              <textarea
                id="import-text"
                className="mono"
                rows={10}
                value={text}
                aria-invalid={problems.length > 0 || undefined}
                aria-describedby={problems.length ? 'import-problems' : undefined}
                onChange={(e) => {
                  setText(e.target.value);
                  setPreview(null);
                }}
              />
            </div>
            <div className="form-grid">
              <div className="field">
                <label htmlFor="import-mode">Mode</label>
                <select id="import-mode" value={mode} onChange={(e) => (setMode(e.target.value as ZoneImportMode), setPreview(null))}>
                  <option value="MERGE">Merge: add the file's records to the zone</option>
                  <option value="REPLACE">Replace: the zone becomes exactly the file</option>
                </select>
              </div>
              <div className="field">
                <label htmlFor="import-ttl">TTLs outside the allowed ones</label>
                <select
                  id="import-ttl"
                  value={ttlPolicy}
                  onChange={(e) => (setTtlPolicy(e.target.value as ZoneImportTtlPolicy), setPreview(null))}
                >
                  <option value="REFUSE">Refuse the file</option>
                  <option value="CLAMP">Clamp to the nearest allowed TTL</option>
                </select>
              </div>
            </div>
            {problems.length > 0 && (
              <ul id="import-problems" role="alert" className="error-box">
                {problems.map((p, i) => (
                  <li key={i}>{p}</li>
                ))}
              </ul>
            )}
            <div className="actions">
              <button type="submit" disabled={busy || !text.trim()}>
                Preview (dry run)
              </button>
            </div>
          </form>
          {preview && (
            <div className="panel" aria-labelledby="preview-title">
              <h3 id="preview-title">
                The import would add {preview.added} and remove {preview.removed} record{preview.removed === 1 ? '' : 's'} (serial{' '}
                {preview.serial})
              </h3>
              <ul className="diff" aria-label="Records the import would change">
                {(preview.removedRecords ?? []).map((r, i) => (
                  <li key={`r${i}`} className="removed">
                    <span aria-hidden="true">− </span>
                    <span className="sr-only">removed: </span>
                    <span className="mono">{r}</span>
                  </li>
                ))}
                {(preview.addedRecords ?? []).map((r, i) => (
                  <li key={`a${i}`} className="added">
                    <span aria-hidden="true">+ </span>
                    <span className="sr-only">added: </span>
                    <span className="mono">{r}</span>
                  </li>
                ))}
              </ul>
              {preview.warnings.length > 0 && (
                <ul aria-label="Warnings">
                  {preview.warnings.map((w, i) => (
                    <li key={i}>
                      {w.line ? `line ${w.line}: ` : ''}
                      {w.message}
                    </li>
                  ))}
                </ul>
              )}
              {preview.dropped.length > 0 && (
                <p>Dropped (a signer writes them): {preview.dropped.map((d) => `${d.count} ${d.type}`).join(', ')}</p>
              )}
              <div className="actions">
                <button type="button" disabled={busy} onClick={() => run(false)}>
                  Apply the import
                </button>
                <button type="button" className="secondary" onClick={() => setPreview(null)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
          {done && (
            <p role="status" className="ok-box">
              {done.changeRequest
                ? sentForReview(done.changeRequest)
                : `Imported: ${done.added} added, ${done.removed} removed; the zone is now at serial ${done.serial}.`}
            </p>
          )}
        </section>
      )}
    </>
  );
}
