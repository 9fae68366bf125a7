// The API docs page (/api/docs): Swagger UI, served from the package, started from this file
// because the Content-Security-Policy allows no inline script. No deep links (they put a link
// inside each operation's button, which screen readers cannot reach) and no validator badge
// (it would ask a server elsewhere): the page needs nothing but this server.
const root = document.getElementById("swagger-ui");
window.SwaggerUIBundle({
  url: root.dataset.openapi,
  dom_id: "#swagger-ui",
  deepLinking: false,
  validatorUrl: null,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
