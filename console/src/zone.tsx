import { useCallback, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { ChangeSet, StagedChange } from './change-set';
import { DnssecPanel } from './dnssec';
import { describeError, errorCode } from './errors';
import {
  DeleteZoneDocument,
  RecordTypesDocument,
  ZoneChangedDocument,
  ZoneDocument,
  ZonePermissionsFieldsFragment,
} from './generated/graphql';
import { HealthPanel } from './health';
import { SteeringPanel } from './steering';
import { History } from './history';
import { PropagationView } from './propagation';
import { LiveChange, Records } from './records';
import { ZoneFile } from './zone-file';
import { ZoneTransferPanel } from './transfers';
import { unicodeName } from './names';
import { ZoneNameserverSet } from './zone-set';
import { SecondaryPanel } from './secondary';
import { ReviewQueue } from './review';
import { ViewPanel, ViewSwitch } from './views';
import { LoadFailure } from './load-failure';
import { TrafficPanel } from './traffic';

/** the tabs, each with the permission it needs (Domain.permissions; none: every reader) */
const TABS: readonly (readonly [string, string, keyof ZonePermissionsFieldsFragment | null])[] = [
  ['records', 'Records', null],
  ['changes', 'Change set', 'editRecords'],
  ['history', 'History', null],
  ['review', 'Review', null],
  ['propagation', 'Propagation', null],
  ['queries', 'Queries', null],
  ['file', 'Zone file', null],
  ['dnssec', 'DNSSEC', null],
  ['health', 'Health', null],
  ['steering', 'Steering', null],
  ['transfer', 'Move to another account', 'moveZone'],
];

/** nothing is offered before the zone's permissions are known */
const NOTHING: ZonePermissionsFieldsFragment = {
  editRecords: false,
  editSoa: false,
  deleteZone: false,
  manageDnssec: false,
  promote: false,
  manageExtraSecondaries: false,
  moveZone: false,
  undeletableTypes: [],
  reviewChanges: false,
};

/** Deleting a zone takes two steps: the button, then a confirmation that names what goes with it. */
function DeleteZone({ zone }: { zone: string }) {
  const [confirming, setConfirming] = useState(false);
  const [{ fetching }, remove] = useMutation(DeleteZoneDocument);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (confirming) heading.current?.focus();
  }, [confirming]);
  if (!confirming) {
    return (
      <button type="button" className="small secondary" onClick={() => setConfirming(true)}>
        Delete zone…
      </button>
    );
  }
  return (
    <div className="panel danger-zone" role="group" aria-labelledby="delete-zone-title">
      <h2 id="delete-zone-title" ref={heading} tabIndex={-1}>
        Delete {zone}?
      </h2>
      <p>
        The zone and all its records and history are deleted, and the secondaries stop serving it. This cannot be undone; if the zone is
        signed, remove its DS at the parent first.
      </p>
      {error && (
        <p role="alert" className="error-box">
          {error}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={fetching}
          onClick={async () => {
            const outcome = await remove({ zone });
            if (outcome.error) setError(describeError(outcome.error));
            else location.hash = `#/?deleted=${encodeURIComponent(zone)}`;
          }}
        >
          Delete {zone} now
        </button>
        <button type="button" className="secondary" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** One zone: its records, the change set being staged, its history and its propagation, one tab each. */
export function ZonePage({ zone, tab }: { zone: string; tab: string }) {
  const [result, refetch] = useQuery({ query: ZoneDocument, variables: { name: zone }, requestPolicy: 'cache-and-network' });
  const [types] = useQuery({ query: RecordTypesDocument });
  // the edits staged for one applyZoneChanges, and the serial they were staged against
  const [staged, setStaged] = useState<StagedChange[]>([]);
  const [baseSerial, setBaseSerial] = useState<number | null>(null);
  // bumped on every change of the zone (ours, or another client's seen by the zoneChanged subscription)
  const [generation, setGeneration] = useState(0);
  const refresh = useCallback(() => {
    refetch({ requestPolicy: 'network-only' });
    setGeneration((g) => g + 1);
  }, [refetch]);
  // live from the newest change the first load saw (zoneChanged's `after`): a change made elsewhere between that
  // load and the server registering the subscription is sent too, not missed
  const [since, setSince] = useState<{ after: string | null } | null>(null);
  // the newest change seen live: the records table applies it where it happened (not a reload of the whole zone)
  const [liveChange, setLiveChange] = useState<LiveChange | null>(null);
  // the view the operator reads the zone in ('': the base zone, as every other client is served it)
  const [view, setView] = useState('');
  const newestLoaded = result.data?.domain.changes.nodes[0]?.id ?? null;
  const loaded = result.data !== undefined;
  useEffect(() => {
    if (loaded) setSince((current) => current ?? { after: newestLoaded });
  }, [loaded, newestLoaded]);
  const [live] = useSubscription(
    { query: ZoneChangedDocument, variables: { zone, after: since?.after }, pause: since === null },
    (_previous, event) => {
      setLiveChange((last) => ({ seq: (last?.seq ?? 0) + 1, change: event.zoneChanged.change }));
      refresh();
      return event;
    },
  );
  const serial = result.data?.domain.serial;
  const requiredApprovals = result.data?.domain.requiredApprovals ?? 0;
  const can = result.data?.domain.permissions ?? NOTHING;
  const secondary = result.data?.domain.kind === 'SECONDARY';
  // a tab the caller may not use is not offered; its address shows the records instead
  const tabs = TABS.filter(([, , needs]) => needs === null || can[needs] === true);
  const shownTab = tabs.some(([id]) => id === tab) ? tab : 'records';

  const stage = useCallback(
    (change: StagedChange) => {
      setStaged((list) => [...list, change]);
      setBaseSerial((base) => base ?? serial ?? null);
    },
    [serial],
  );

  if (result.error) {
    const notFound = errorCode(result.error) === 'ZONE_NOT_FOUND';
    return (
      <LoadFailure
        message={notFound ? `There is no zone ${zone} (or this key may not see it).` : describeError(result.error)}
        onRetry={() => refetch({ requestPolicy: 'network-only' })}
        instead={notFound ? <a href="#/">Back to the zones</a> : undefined}
      />
    );
  }
  return (
    <section aria-labelledby="zone-title">
      <p className="crumbs">
        <a href="#/">Zones</a> /
      </p>
      <h1 id="zone-title">{unicodeName(zone)}</h1>
      {unicodeName(zone) !== zone && (
        <p className="hint">
          A-label (as stored and served): <span className="mono">{zone}</span>
        </p>
      )}
      <div className="zone-meta">
        <span className={`kind-badge ${secondary ? 'kind-secondary' : 'kind-primary'}`} data-testid="zone-kind">
          {secondary ? 'Secondary' : 'Primary'}
        </span>{' '}
        Serial <strong data-testid="zone-serial">{serial ?? '…'}</strong>
        {live.data && (
          <span className="live" role="status">
            {' '}
            · last change seen live: serial {live.data.zoneChanged.change.serialAfter}
          </span>
        )}{' '}
        {can.deleteZone && <DeleteZone zone={zone} />}
      </div>
      {requiredApprovals > 0 && (
        <p className="hint" data-testid="zone-review">
          Each change needs {requiredApprovals} approval{requiredApprovals === 1 ? '' : 's'} by another person: a change saved here is sent
          for review (the Review tab).
        </p>
      )}
      {secondary && <SecondaryPanel zone={zone} status={result.data?.domain.secondary} canPromote={can.promote} onPromoted={refresh} />}
      <ZoneNameserverSet zone={zone} set={result.data?.domain.nameserverSet} onMoved={refresh} />
      <ViewSwitch view={view} onChoose={setView} />
      <nav className="tabs" aria-label="Zone views">
        {tabs.map(([id, label]) => (
          <a key={id} href={`#/zone/${encodeURIComponent(zone)}/${id}`} aria-current={shownTab === id ? 'page' : undefined}>
            {label}
            {id === 'changes' && staged.length > 0 ? ` (${staged.length})` : ''}
          </a>
        ))}
      </nav>
      {types.error && (
        <p role="alert" className="error-box">
          {describeError(types.error)}
        </p>
      )}
      {view ? (
        <ViewPanel key={`${view} ${generation}`} zone={zone} view={view} />
      ) : shownTab === 'changes' ? (
        <ChangeSet
          zone={zone}
          staged={staged}
          baseSerial={baseSerial}
          currentSerial={serial}
          onChange={(list, base) => {
            setStaged(list);
            setBaseSerial(list.length ? base : null);
          }}
          onApplied={refresh}
        />
      ) : shownTab === 'history' ? (
        <History zone={zone} generation={generation} canRevert={can.editRecords} onReverted={refresh} />
      ) : shownTab === 'review' ? (
        <ReviewQueue
          zone={zone}
          requiredApprovals={requiredApprovals}
          canReview={can.reviewChanges}
          generation={generation}
          onChanged={refresh}
        />
      ) : shownTab === 'propagation' ? (
        <PropagationView zone={zone} />
      ) : shownTab === 'queries' ? (
        <TrafficPanel zone={zone} />
      ) : shownTab === 'file' ? (
        <ZoneFile zone={zone} canImport={can.editRecords} onImported={refresh} />
      ) : shownTab === 'dnssec' ? (
        <DnssecPanel zone={zone} generation={generation} manage={can.manageDnssec} onChanged={refresh} />
      ) : shownTab === 'health' ? (
        <HealthPanel zone={zone} />
      ) : shownTab === 'steering' ? (
        <SteeringPanel zone={zone} generation={generation} />
      ) : shownTab === 'transfer' ? (
        <ZoneTransferPanel zone={zone} />
      ) : (
        <Records
          zone={zone}
          types={types.data?.recordTypes ?? []}
          liveChange={liveChange}
          canEdit={can.editRecords}
          onChanged={refresh}
          onStage={stage}
        />
      )}
    </section>
  );
}
