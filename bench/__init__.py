"""Performance checks for the lab: ``python -m bench`` (figures vs budgets) and ``python -m bench.load`` (a class).

One job per file: ``budgets`` (the numbers to meet), ``timing`` (medians), ``posenc_cases`` (math timings),
``page_cases`` (which slider each page moves), ``reruns`` (AppTest reruns and bytes), ``report`` (the table),
``server`` (a real ``streamlit run`` on 127.0.0.1), ``protocol`` (Streamlit's websocket messages), ``load`` (students).
"""
