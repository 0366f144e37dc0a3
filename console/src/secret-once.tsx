import { useState } from 'react';

/**
 * A secret the service returns once (it keeps only a hash, or the secret sealed): shown here once, in a field to
 * copy it from, and a Copy button (the clipboard is offered by the browser on https and localhost only: elsewhere
 * the field is still there to select).
 */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="panel" role="status">
      <h3>{label}</h3>
      <p>Copy it now: the service keeps no copy, and it cannot be shown again.</p>
      <label htmlFor="new-secret">Secret</label>
      <input id="new-secret" className="mono secret" readOnly value={secret} onFocus={(e) => e.target.select()} />
      <div className="actions">
        {typeof navigator.clipboard?.writeText === 'function' && (
          <button
            type="button"
            className="secondary"
            onClick={() =>
              navigator.clipboard.writeText(secret).then(
                () => setCopied('Copied to the clipboard.'),
                () => setCopied('The browser refused the clipboard: select the field and copy it.'),
              )
            }
          >
            Copy
          </button>
        )}
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      {copied && <p className="hint">{copied}</p>}
    </div>
  );
}
