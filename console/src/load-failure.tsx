import type { ReactNode } from 'react';

/**
 * A read of a screen that failed: what went wrong, in words, and the one way on: asking again, or where asking
 * again cannot help (a zone that is not there), the way given instead. Every screen that reads shows it where
 * its data would be (the sentence from describeError or the screen's own).
 */
export function LoadFailure({ message, onRetry, instead }: { message: string; onRetry: () => void; instead?: ReactNode }) {
  return (
    <div role="alert" className="error-box">
      <p>{message}</p>
      {instead ?? (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
