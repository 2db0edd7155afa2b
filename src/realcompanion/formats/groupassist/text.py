"""Bilingual (Chinese, English) sentence templates of the synthetic group chats.

Every value a memory carries is made unique in the release (a code numbered
from its group's on a named thing), so a span is found verbatim exactly where it
was planted and nowhere else: gate ii finds it, gate iii cannot find it in a
query, the M3 rule finds no later re-use of a superseded value, and no earlier
message states an anchor's value (GC17). Queries name the matter, never the
value, and carry no word of the descriptor's gate-iii lists. A member's profile
is said in the same words each time: it is anchored where the member first said it.
"""
from __future__ import annotations

from . import ASSISTANT_MENTION, LANGUAGES

# (zh, en) pairs; filler never holds a value, a matter name or a gate word
FILLER_MEMBER = [
    ("今天下班有点晚，刚到家。", "Got off work a bit late today, just got home."),
    ("哈哈哈这个表情包太好笑了", "Haha that sticker is hilarious"),
    ("大家吃饭了吗？", "Has everyone eaten yet?"),
    ("外面下雨了，记得带伞。", "It's raining outside, bring an umbrella."),
    ("我先去开个会，晚点聊。", "Off to a meeting, talk later."),
    ("周末有人想去爬山吗？", "Anyone up for a hike at the weekend?"),
    ("刚看完那部电影，挺不错的。", "Just finished that film, pretty good."),
    ("收到，谢谢！", "Got it, thanks!"),
    ("我觉得可以，没问题。", "Fine by me, no problem."),
    ("今天好累啊，早点休息。", "So tired today, going to bed early."),
    ("有人知道附近哪里有打印店吗？", "Does anyone know a print shop nearby?"),
    ("好的好的，明白了。", "OK OK, understood."),
]
FILLER_ASSISTANT = [
    ("好的，有需要随时叫我。", "Sure, call me whenever you need."),
    ("祝大家今天顺利！", "Wishing everyone a smooth day!"),
    ("我整理了一下刚才的讨论，大家看看有没有遗漏。", "I summarised the discussion so far; see if anything is missing."),
    ("收到，我来帮大家查一下。", "Noted, let me look that up for the group."),
]
PLACEHOLDER = {
    "safety": ("[该消息已被安全过滤]", "[message removed by the safety filter]"),
    "attachment": ("[图片] 照片{code}.jpg", "[image] photo{code}.jpg"),
}

# things a value names: (zh name, en name); a value is "{zh}{code}号" / "{en} No. {code}"
THINGS = [("图书馆", "Library"), ("湘菜馆", "Hunan Kitchen"), ("会议室", "Meeting Room"), ("民宿", "Guesthouse"),
          ("体育馆", "Sports Hall"), ("咖啡馆", "Cafe"), ("公交", "Bus"), ("教室", "Classroom")]
# matters a value settles: (zh, en); queries name these, never a value
MATTERS = [
    ("周末聚会的地点", "the place for the weekend get-together"),
    ("下次组会的房间", "the room for the next group meeting"),
    ("出发的集合点", "the meeting point for departure"),
    ("团建吃饭的地方", "the restaurant for the team dinner"),
    ("复习小组的场地", "the venue of the revision group"),
    ("旅行住的地方", "the lodging for the trip"),
    ("羽毛球的场馆", "the hall for badminton"),
    ("接孩子的路线", "the route for picking up the kids"),
    ("读书会的地点", "the venue of the book club"),
    ("面试前碰头的地方", "the place to meet before the interview"),
    ("年会彩排的礼堂", "the auditorium for the annual party rehearsal"),
    ("家长会停车的位置", "the parking spot for the parents' evening"),
    ("乐队排练的琴房", "the practice room for the band"),
    ("志愿活动的报到处", "the check-in desk for volunteering"),
    ("摄影外拍的取景地", "the location for the photo shoot"),
    ("生日派对的包间", "the private room for the birthday party"),
]
STATE = ("{matter}定在{value}。", "For {matter}, we go with {value}.")
SUPERSEDED = ("{matter}先定在{value}。", "For {matter}, {value} is the plan for the moment.")
CURRENT = ("{matter}换到{value}了。", "For {matter}, it has changed to {value}.")
SECOND_FACT = ("，另外{matter}定在{value}。", "; also, for {matter}, we go with {value}.")
RELAY = ("好的，已记下：{matter}定在{value}。", "Noted: for {matter}, we go with {value}.")
FACT = ("{matter}是{value}", "{matter_cap} is {value}")
PROFILE = [("我不吃辣", "I don't eat spicy food"), ("我对花粉过敏", "I am allergic to pollen"),
           ("我周末要值班", "I work weekend shifts"), ("我不会开车", "I can't drive")]
MEMBER_PROFILE = "喜欢户外活动，常在群里组织聚会 / likes outdoor activities and often organises meetups"
PROFILE_MESSAGE = ("顺便说一下，{span}。", "By the way, {span}.")
PREMISE = ("这次活动预算是{code}元", "the budget for this outing is {code} yuan")
PREMISE_MESSAGE = ("提醒一下，{span}。", "Reminder: {span}.")
QUERY = {  # level -> (zh, en); {premise} is empty or a premise clause
    "L1": ("{premise}{matters}分别是哪里？", "{premise}Where is each of {matters}?"),
    "L2": ("{premise}帮我们围绕{matters}安排一下，给个方案。", "{premise}Please plan around {matters} and propose an arrangement."),
}
QUERY_PREMISE = ("{span}，", "Given that {span}, ")
NATIVE_PREFIX = tuple(f"{ASSISTANT_MENTION[lang][0]} " for lang in LANGUAGES)  # a native request mentions the assistant
ANSWER_JOIN = ("；", "; ")
MATTER_JOIN = ("和", " and ")
CRITERION = {
    "grounding": ("回复依据：{fact}", "The reply relies on: {fact}"),
    "service": [("给出可执行的安排", "Gives an arrangement the group can act on"),
                ("照顾到每位成员", "Takes every member into account"),
                ("说明下一步由谁负责", "Says who does the next step")],
    "penalty": ("回复把{fact}说错或用错", "The reply gets wrong or misuses: {fact}"),
}
# feedback wording per pattern: a member's correction right after an assistant reply
FEEDBACK = {
    "current_state": ("不对，我现在已经不在那边了", "No, I'm not there any more"),
    "recalled_fact": ("不是三张，我做了四张", "Not three, I did four sheets"),
    "agreement_or_persona": ("我们不是说好了不点外卖吗", "Didn't we agree not to order takeaway"),
    "superseded_value": ("现在应该是地理，不是生物", "It should be geography now, not biology"),
    "earlier_statement_or_plan": ("之前不是已经定好了吗", "Wasn't that already settled before"),
}
AUDIT_REASON = {
    "gate": "deterministic gate {check} failed",
    "review": "reviewer check {check}: negative judgment with quote",
}
