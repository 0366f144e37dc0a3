import type { ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { describeError } from './errors';

/**
 * A list read from the API, shown alike on every screen: its error, "Loading …" until it is there, a sentence
 * when it is empty, else its table in a region that scrolls sideways and takes the keyboard's focus (a 390 px
 * screen; axe's scrollable-region-focusable).
 */
export function ListState(props: {
  error?: CombinedError;
  loaded: boolean;
  /** what is loading, in words: "members" */
  what: string;
  /** the sentence shown when the list is empty; false (or absent) when it is not */
  empty?: string | false;
  /** the id of the heading that names the list */
  labelledBy: string;
  children: ReactNode;
}) {
  if (props.error)
    return (
      <p role="alert" className="error-box">
        {describeError(props.error)}
      </p>
    );
  if (!props.loaded) return <p aria-live="polite">Loading {props.what}…</p>;
  if (props.empty) return <p className="empty">{props.empty}</p>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-labelledby={props.labelledBy}>
      {props.children}
    </div>
  );
}
