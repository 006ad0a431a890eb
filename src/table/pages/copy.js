// Copying a link, for the start page and the host's seat links. `navigator.clipboard` exists
// only in a secure context (https, or this computer's own address): over plain http on a LAN
// the text is put in a hidden field, selected and copied with execCommand("copy"), which
// browsers still honour for a click.
"use strict";
window.rallyCopy = function (text, button) {
  const done = (ok) => {
    button.textContent = ok ? "copied" : "select and copy";
    button.dataset.copied = ok ? "yes" : "no";
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done(true), () => done(fallback(text)));
  } else {
    done(fallback(text));
  }
  function fallback(value) {
    const field = document.createElement("textarea");
    field.value = value;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    document.body.appendChild(field);
    field.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    field.remove();
    return ok;
  }
};
