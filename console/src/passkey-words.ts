/**
 * A WebAuthn ceremony's failure (@simplewebauthn/browser's WebAuthnError, or the browser's DOMException) as a
 * sentence for a person: what happened and what to do, never the library's own message (which is written for
 * developers: "The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/…").
 * `making`: a registration (a new passkey), else a sign-in (an assertion).
 */
export function passkeyProblem(error: unknown, making: boolean): string {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
  const nothing = making ? 'No passkey was made.' : 'You are not signed in.';
  // the person cancelled the browser's dialog, it timed out, or (a sign-in) this device holds no passkey for this site:
  // browsers answer all of these alike, on purpose (the W3C's privacy considerations)
  if (name === 'NotAllowedError')
    return making
      ? `${nothing} The request was cancelled or timed out. Try again, and confirm on your device (fingerprint, face, PIN or security key) when it asks.`
      : `${nothing} The request was cancelled or timed out, or this device holds no passkey for this site. Try again and confirm on your device when it asks, or use the device or security key where you made your passkey.`;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError')
    return `${nothing} This device or security key already holds a passkey of yours for this site: sign in with it, or add another device instead.`;
  if (code === 'ERROR_CEREMONY_ABORTED' || name === 'AbortError')
    return `${nothing} The passkey request was stopped before it finished (another one began, or the page changed). Try again.`;
  if (code === 'ERROR_INVALID_DOMAIN' || code === 'ERROR_INVALID_RP_ID' || name === 'SecurityError')
    return `${nothing} Passkeys work only at the address the service is set up for (PUBLIC_ORIGIN), over HTTPS or on localhost: open the console at that address and try again.`;
  if (name === 'ConstraintError' || name === 'NotSupportedError')
    return `${nothing} This device or security key cannot make the kind of passkey needed (one it keeps, with a PIN or biometrics). Try another device, such as your phone.`;
  if (/not supported in this browser/i.test(message ?? ''))
    return `${nothing} This browser cannot use passkeys. Use a recent Chrome, Edge, Firefox or Safari.`;
  return `${nothing} The passkey could not be used on this device. Try again, or use another device or security key.`;
}
