"""The web client: static files served by the gateway at ``/`` (see docs/web.md), and
the exporter of the catalogues it reads (:mod:`clients.web.export`)."""
