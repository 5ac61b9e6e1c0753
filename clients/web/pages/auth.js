// Sign up / sign in: one form, two buttons (a new account signs in at once).

import { api, saveSession } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";

// The gateway's limit (orrery_contracts.inputs.MAX_NAME). A longer name is told, never
// cut silently (a maxlength attribute would drop the end of a pasted name).
const MAX_NAME = 40;

function nameProblem(value) {
  const length = [...value.trim()].length;
  return length > MAX_NAME ? `A name has at most ${MAX_NAME} characters; this one has ${length}.` : "";
}

export function mountAuth(root, { done }) {
  const name = h("input", {
    id: "auth-name",
    name: "username",
    autocomplete: "username",
    required: true,
    "data-testid": "signup-name",
    oninput: () => {
      const problem = nameProblem(name.value);
      message.textContent = problem;
      if (problem) name.setAttribute("aria-invalid", "true");
      else name.removeAttribute("aria-invalid");
    },
  });
  const password = h("input", {
    id: "auth-password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
    minlength: 8,
    "data-testid": "signup-password",
  });
  const message = h("p", { class: "message", role: "alert", "data-testid": "auth-message" });
  const busy = (on) => {
    for (const button of form.querySelectorAll("button")) button.disabled = on;
  };

  async function submit(mode) {
    message.textContent = "";
    if (!name.value.trim() || !password.value) {
      message.textContent = "Enter a name and a password.";
      return;
    }
    if (nameProblem(name.value)) {
      message.textContent = nameProblem(name.value);
      return;
    }
    busy(true);
    try {
      if (mode === "signup") await api.signUp(name.value, password.value);
      const signed = await api.signIn(name.value, password.value);
      const me = await fetchMe(signed);
      saveSession({ ...signed, name: me.name });
      done();
    } catch (error) {
      message.textContent = error.message;
      busy(false);
    }
  }

  const form = h(
    "form",
    {
      class: "card auth",
      onsubmit: (event) => {
        event.preventDefault();
        submit(event.submitter && event.submitter.value === "signin" ? "signin" : "signup");
      },
    },
    h("h1", {}, "Welcome to Orrery"),
    h(
      "p",
      {},
      "Play Fractured Sky, SPACEcraft and Federation with friends or bots, watch live tables and replay finished games.",
    ),
    h("label", { for: "auth-name" }, "Name"),
    name,
    h("label", { for: "auth-password" }, "Password (8 characters or more)"),
    password,
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { type: "submit", value: "signup", class: "primary", "data-testid": "signup-submit" },
        "Create account",
      ),
      h("button", { type: "submit", value: "signin", "data-testid": "signin-submit" }, "Sign in"),
    ),
    message,
  );
  replaceChildren(root, form);
  name.focus();
  return () => {};
}

async function fetchMe(signed) {
  const response = await fetch("/v1/players/me", {
    headers: { Authorization: `Bearer ${signed.token}`, Accept: "application/json" },
  });
  if (!response.ok) return { name: "" };
  return response.json();
}
