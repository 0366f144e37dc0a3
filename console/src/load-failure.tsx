/**
 * A read of a screen that failed: what went wrong, in words, and the one way on, asking again. Every screen that
 * reads shows it where its data would be (the sentence from describeError or the screen's own).
 */
export function LoadFailure({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="error-box">
      <p>{message}</p>
      <button type="button" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}
