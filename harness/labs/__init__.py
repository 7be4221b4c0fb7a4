"""Notebook helpers: experiments, figures and slider callbacks, one module per chapter's lab.

style (one plot style for every chapter) · scratch (a working folder of its
own for every notebook run) · panel (sliders that redraw one text line and
one picture in place) · scenarios and runs (the workspaces and the runs every
chapter measures) · growth and plots (00-01) · micro_lab
(02) · auto_lab (03) · loop_lab (04-05) · yours (02-05: your function against the
harness's) · inspector (07) · amnesia and
strategy_lab (08) · cost and tuning (09) · recording (a client that keeps
what each request looked like). These import matplotlib and the fake; the
core never imports them.
"""
