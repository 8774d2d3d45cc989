"""Pages of the raidsweep browser app (``streamlit run app.py``)."""
