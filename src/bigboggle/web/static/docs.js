// The API docs page (/api/docs): Swagger UI, served from the package, started from this file
// because the Content-Security-Policy allows no inline script.
const root = document.getElementById("swagger-ui");
window.SwaggerUIBundle({
  url: root.dataset.openapi,
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
