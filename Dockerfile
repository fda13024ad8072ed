# Positional Encoding Lab as a container: slim Python, a non-root user, a health check, no downloads at run time.
#   docker build -t posenc-lab .
#   docker run -p 8501:8501 posenc-lab
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576
# MALLOC_ARENA_MAX: glibc gives each script-run thread its own malloc arena by default (8 per core), and a class's
# runs leave every one of them partly used; two arenas keep a replica about a fifth smaller after 100 students
# explore (python -m bench.load --scenario exploring: 1.45 → 1.14 GB for two replicas), at the same CPU.
# MALLOC_MMAP_THRESHOLD_: every block of 1 MiB or more (a chart's arrays) is its own mapping, given back to the system
# when freed, instead of a hole in an arena: two replicas 1,014 → 935 MB at the most over the exploring class's 120 s,
# at the same CPU per move (48.6 ms both); 128 KiB took them to 920 MB but cost CPU (54.9 ms) (docs/performance.md).

# Point pip at PyTorch's CPU-only wheel index here (docker build --build-arg TORCH_INDEX_URL=…) to keep the image
# small; without it, torch==2.13.0 from PyPI brings CUDA libraries this app never uses.
ARG TORCH_INDEX_URL=""

RUN useradd --create-home --uid 10001 lab
WORKDIR /home/lab/app

COPY requirements.txt .
RUN if [ -n "$TORCH_INDEX_URL" ]; then pip install --index-url "$TORCH_INDEX_URL" torch==2.13.0; fi \
    && pip install -r requirements.txt

# Everything else in the build context: whatever the app reads at run time is in the image without being listed here
# (a folder left out of a list once cost the image its locales/). .dockerignore leaves out what the app never reads;
# tests/test_docker_context.py rebuilds these files without Docker and runs every page from them.
COPY --chown=lab:lab . .

USER lab
EXPOSE 8501
# The server listens only after its warm-up (ui/startup.py: imports, catalogs, one run of navigation.py, which also
# registers the navigation before the first visitor), so the first checks are refused until then: the start period
# covers that. The script health check runs navigation.py once more and fails if the app itself fails, not only
# when the server is down; the app answers it only to a request from inside the container that no proxy forwarded
# (ui/http.py), since each call costs a run of the app: a published port does not expose it.
HEALTHCHECK --interval=30s --timeout=30s --start-period=60s --start-interval=2s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/script-health-check', timeout=25).status != 200)"

CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501"]
