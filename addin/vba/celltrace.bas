Attribute VB_Name = "CelltraceRibbon"
' celltrace ribbon callbacks (tab "celltrace": Ask, Long answer, Batch, Clear).
' Each button runs one Python macro of celltrace.addin.macros through xlwings' RunPython;
' the Python side shows its own messages and applies all changes or none.
' Imported into the add-in by addin/build_xlam.py; see addin/README.md.
Option Explicit

Private Const MACROS As String = "import celltrace.addin.macros as m; "

Sub CelltraceAsk(control As IRibbonControl)
    #If Mac Then
        AskOnMac False
    #Else
        RunPython MACROS & "m.ask()"
    #End If
End Sub

Sub CelltraceAskLong(control As IRibbonControl)
    #If Mac Then
        AskOnMac True
    #Else
        RunPython MACROS & "m.ask_long()"
    #End If
End Sub

Sub CelltraceBatch(control As IRibbonControl)
    RunPython MACROS & "m.batch()"
End Sub

Sub CelltraceClear(control As IRibbonControl)
    RunPython MACROS & "m.clear()"
End Sub

' On macOS, Python cannot open Excel's input box through AppleScript, so VBA asks and passes
' the question as UTF-16 hex: no quoting problem whatever the user types.
Private Sub AskOnMac(longAnswer As Boolean)
    Dim question As Variant
    question = Application.InputBox("Your question about the selected table", "celltrace", Type:=2)
    If VarType(question) = vbBoolean Then Exit Sub
    If Len(Trim$(CStr(question))) = 0 Then Exit Sub
    RunPython MACROS & "m.ask_hex('" & Utf16Hex(CStr(question)) & "', long=" & IIf(longAnswer, "True", "False") & ")"
End Sub

Private Function Utf16Hex(text As String) As String
    Dim i As Long, out As String
    For i = 1 To Len(text)
        out = out & Right$("000" & Hex$(AscW(Mid$(text, i, 1)) And &HFFFF&), 4)
    Next i
    Utf16Hex = out
End Function
