import type { ChangedRecordFieldsFragment } from './generated/graphql';

/**
 * The records a change adds (+) or removes (−), one line each in a zone file's order of fields, as the history,
 * a change set's conflict and plan, and a change request's plan show them.
 */
export function RecordLines({ records, sign }: { records: ChangedRecordFieldsFragment[]; sign: '+' | '−' }) {
  return (
    <>
      {records.map((r, i) => (
        <li key={`${sign}${i}`} className={sign === '+' ? 'added' : 'removed'}>
          <span aria-hidden="true">{sign} </span>
          <span className="sr-only">{sign === '+' ? 'added: ' : 'removed: '}</span>
          <span className="mono">
            {r.owner} {r.ttl} {r.type} {r.rdata}
          </span>
          {r.toggled && <span className="toggled"> ({sign === '+' ? 'enabled' : 'disabled'})</span>}
        </li>
      ))}
    </>
  );
}
