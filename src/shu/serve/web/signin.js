// Signing in with a name and a password: the session lives in an HttpOnly cookie the page never
// reads; the page keeps only the session's CSRF token (in memory, asked again after a reload from
// GET /v1/session) and sends it with every request that changes something.

import { describeDetail, setCsrf, storeKey } from "./api.js";

const $ = (id) => document.getElementById(id);

const signIn = { offered: false, session: null, settle: null, useKey: null };

export function offerSignIn(offered) {
  signIn.offered = Boolean(offered);
}

export function signInOffered() {
  return signIn.offered;
}

export function signedIn() {
  return signIn.session;
}

function showSession(session) {
  signIn.session = session;
  setCsrf(session ? session.csrf_token : "");
  $("sign-out").hidden = !session;
}

/** The session this browser's cookie holds (and its CSRF token), or null. */
export async function currentSession() {
  try {
    const response = await fetch("/v1/session", { headers: { Accept: "application/json" } });
    showSession(response.ok ? await response.json() : null);
  } catch {
    showSession(null);
  }
  return signIn.session;
}

/** Ask for a name and a password; resolves {session} once signed in, a key string when the
 * reader chose an API key instead, or null. */
export function promptSignIn(message, keyPrompt) {
  const dialog = $("signin-dialog");
  $("signin-message").textContent = message || "Sign in with your name and password.";
  $("signin-password").value = "";
  signIn.useKey = keyPrompt;
  if (!dialog.open) dialog.showModal();
  $("signin-name").focus();
  return new Promise((resolve) => {
    signIn.settle = resolve;
  });
}

function settle(value) {
  const dialog = $("signin-dialog");
  if (dialog.open) dialog.close();
  if (signIn.settle) signIn.settle(value);
  signIn.settle = null;
}

async function submit(event) {
  event.preventDefault();
  const name = $("signin-name").value.trim();
  const password = $("signin-password").value;
  if (!name || !password) return;
  let response;
  try {
    response = await fetch("/v1/session", {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ name, password }),
    });
  } catch (error) {
    $("signin-message").textContent = `Could not reach the server (${error.message || error}).`;
    return;
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    /* not JSON */
  }
  if (!response.ok) {
    $("signin-message").textContent = describeDetail(body && body.detail) || `${response.status} error`;
    $("signin-password").value = "";
    $("signin-password").focus();
    return;
  }
  storeKey(""); // the session speaks from now on, not a key kept from before
  showSession(body);
  settle({ session: body });
}

/** End the session on the server; the page starts again signed out. */
export async function signOut() {
  const csrf = signIn.session ? signIn.session.csrf_token : "";
  try {
    await fetch("/v1/session", { method: "DELETE", headers: { "X-CSRF-Token": csrf } });
  } finally {
    showSession(null);
  }
}

export function setupSignIn() {
  $("signin-form").addEventListener("submit", submit);
  $("signin-dialog").addEventListener("cancel", () => settle(null));
  $("signin-key").addEventListener("click", async () => {
    const keyPrompt = signIn.useKey;
    const resolve = signIn.settle;
    signIn.settle = null;
    $("signin-dialog").close();
    const key = keyPrompt ? await keyPrompt("") : null;
    if (resolve) resolve(key);
  });
  $("sign-out").addEventListener("click", async () => {
    await signOut();
    window.location.reload();
  });
}
